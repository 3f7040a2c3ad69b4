package indexer

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"tagged", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"pseudo", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126040000-0123456789ab+dirty"}}, "v0.0.0-20261126040000-0123456789ab+dirty"},
		{"devel with vcs", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "devel-0123456789ab+dirty"},
		{"devel clean", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789ab"}, {Key: "vcs.modified", Value: "false"}}}, "devel-0123456789ab"},
		{"nothing", debug.BuildInfo{}, "devel"},
	}
	for _, tc := range tests {
		if got := buildVersion(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if Version() == "" {
		t.Error("Version is empty")
	}
}
