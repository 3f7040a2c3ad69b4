package indexer

import "testing"

func TestNormalizeRemote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://github.com/Acme/api.git", "github.com/Acme/api"},
		{"https://github.com/Acme/api", "github.com/Acme/api"},
		{"https://github.com/Acme/api/", "github.com/Acme/api"},
		{"git@github.com:Acme/api.git", "github.com/Acme/api"},
		{"ssh://git@github.com:22/Acme/api.git", "github.com/Acme/api"},
		{"https://user:secret@GitLab.example.com:8443/group/sub/proj.git", "gitlab.example.com/group/sub/proj"},
		{"git://example.org/x/y", "example.org/x/y"},
	} {
		got, err := NormalizeRemote(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizeRemote(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "/srv/git/api", "../api", "https://github.com/", "git@host:"} {
		if got, err := NormalizeRemote(bad); err == nil {
			t.Errorf("NormalizeRemote(%q) = %q, want an error", bad, got)
		}
	}
}
