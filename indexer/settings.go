package indexer

import (
	"encoding/json"
	"slices"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
)

// Settings are the file-selection settings an index remembers (meta
// "settings", written by every completed run): a later run that is not
// given them — `viberag index` or `viberag mcp` without the flags —
// selects files as the index was built, instead of falling back to the
// defaults and dropping what the settings had added or kept out.
type Settings struct {
	Include      []string `json:"include,omitempty"`
	Exclude      []string `json:"exclude,omitempty"`
	MaxFileSize  int64    `json:"max_file_size,omitempty"`
	IndexSecrets bool     `json:"index_secrets,omitempty"`
}

// SettingsOf returns the remembered part of sel (all but the data
// directory, which is the index's own place, not a setting).
func SettingsOf(sel fileset.SelectOptions) Settings {
	return Settings{Include: sel.Include, Exclude: sel.Exclude, MaxFileSize: sel.MaxFileSize, IndexSecrets: sel.IndexSecrets}
}

// Select returns the selection options of s for an index in dataDir.
func (s Settings) Select(dataDir string) fileset.SelectOptions {
	return fileset.SelectOptions{Include: s.Include, Exclude: s.Exclude, MaxFileSize: s.MaxFileSize, IndexSecrets: s.IndexSecrets, DataDir: dataDir}
}

// Remembered reads the settings an index was built with, false when it
// records none (a new index, or one from before settings were kept).
func Remembered(meta map[string]string) (Settings, bool) {
	raw := meta[tables.MetaSettings]
	if raw == "" {
		return Settings{}, false
	}
	var s Settings
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return Settings{}, false
	}
	return s, true
}

// SettingsFlags are the selection settings a command was given. A nil
// list, a zero size or a nil IndexSecrets means "not given": the
// remembered value applies. A given value replaces the remembered one; a
// list given only empty values (`--exclude=`) clears it.
type SettingsFlags struct {
	Include, Exclude []string
	MaxFileSize      int64
	IndexSecrets     *bool
}

// Resolve applies f over the settings meta remembers.
func (f SettingsFlags) Resolve(meta map[string]string) Settings {
	s, _ := Remembered(meta)
	if f.Include != nil {
		s.Include = nonEmpty(f.Include)
	}
	if f.Exclude != nil {
		s.Exclude = nonEmpty(f.Exclude)
	}
	if f.MaxFileSize != 0 {
		s.MaxFileSize = f.MaxFileSize
	}
	if f.IndexSecrets != nil {
		s.IndexSecrets = *f.IndexSecrets
	}
	return s
}

func nonEmpty(l []string) []string {
	l = slices.DeleteFunc(slices.Clone(l), func(s string) bool { return s == "" })
	if len(l) == 0 {
		return nil
	}
	return l
}
