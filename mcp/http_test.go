package mcp

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

func TestHTTPGuard(t *testing.T) {
	root := testkit.Fixture(t, "python")
	opts := testOptions(t, root)
	opts.NoWatch = true
	s := startServer(t, opts)

	// "PORT" in host and origin is the listener's port.
	tests := []struct {
		name               string
		opts               HTTPOptions
		host, origin, auth string
		want               int
	}{
		{name: "loopback host", want: 200},
		{name: "localhost host and origin", host: "localhost:PORT", origin: "http://localhost:PORT", want: 200},
		{name: "names in upper case", host: "LOCALHOST:PORT", origin: "HTTP://LocalHost:PORT", want: 200},
		{name: "ipv6 loopback", host: "[::1]:PORT", origin: "https://[::1]:PORT", want: 200},
		{name: "loopback host, another port", host: "localhost:1", want: 403},
		{name: "loopback host without port", host: "localhost", want: 403},
		{name: "origin of another local server", origin: "http://localhost:3000", want: 403},
		{name: "origin of a loopback name without port", origin: "http://127.0.0.1", want: 403},
		{name: "origin with another scheme", origin: "ftp://localhost:PORT", want: 403},
		{name: "foreign host (DNS rebinding)", host: "evil.example.com", want: 403},
		{name: "foreign host with our port", host: "evil.example.com:PORT", want: 403},
		{name: "foreign host and origin", host: "evil.example.com", origin: "http://evil.example.com", want: 403},
		{name: "foreign origin", origin: "http://evil.example.com", want: 403},
		{name: "null origin", origin: "null", want: 403},
		{name: "loopback name in a subdomain", host: "localhost.evil.example.com", want: 403},
		{name: "allowed host", opts: HTTPOptions{AllowedHosts: []string{"dev.internal"}}, host: "dev.internal:8765", want: 200},
		{name: "allowed host in another case", opts: HTTPOptions{AllowedHosts: []string{"Dev.Internal"}}, host: "DEV.internal", want: 200},
		{name: "allowed origin", opts: HTTPOptions{AllowedOrigins: []string{"https://app.example"}}, origin: "https://app.example", want: 200},
		{name: "allowed origin, case and default port", opts: HTTPOptions{AllowedOrigins: []string{"https://App.Example"}}, origin: "HTTPS://app.example:443", want: 200},
		{name: "allowed origin, another port", opts: HTTPOptions{AllowedOrigins: []string{"https://app.example"}}, origin: "https://app.example:8443", want: 403},
		{name: "token missing", opts: HTTPOptions{Token: "s3cret"}, want: 401},
		{name: "token wrong", opts: HTTPOptions{Token: "s3cret"}, auth: "Bearer nope", want: 401},
		{name: "token right", opts: HTTPOptions{Token: "s3cret"}, auth: "Bearer s3cret", want: 200},
		{name: "token right, foreign origin", opts: HTTPOptions{Token: "s3cret"}, auth: "Bearer s3cret", origin: "http://evil.example.com", want: 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewUnstartedServer(nil)
			ts.Config.Handler = s.HTTPHandler(ts.Listener.Addr().String(), tc.opts)
			ts.Start()
			defer ts.Close()
			_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
			host := strings.ReplaceAll(tc.host, "PORT", port)
			origin := strings.ReplaceAll(tc.origin, "PORT", port)
			h := http.Header{}
			for k, v := range map[string]string{"Host": host, "Origin": origin, "Authorization": tc.auth} {
				if v != "" {
					h.Set(k, v)
				}
			}
			if got := testkit.PostInitialize(t, ts.URL+HTTPPath, h); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
}

func TestListenRefusesOpenBindWithoutToken(t *testing.T) {
	tests := []struct {
		opts    HTTPOptions
		wantErr error
	}{
		{HTTPOptions{Addr: "127.0.0.1:0"}, nil},
		{HTTPOptions{Addr: ":0"}, nil}, // defaults to 127.0.0.1
		{HTTPOptions{Addr: "0"}, nil},
		{HTTPOptions{Addr: "0.0.0.0:0"}, ErrNeedToken},
		{HTTPOptions{Addr: "0.0.0.0:0", Token: "t"}, nil},
		{HTTPOptions{Addr: "0.0.0.0:0", AllowNoAuth: true}, nil},
	}
	for _, tc := range tests {
		ln, err := Listen(tc.opts)
		if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
			t.Errorf("Listen(%+v): %v, want %v", tc.opts, err, tc.wantErr)
		}
		if ln != nil {
			if tc.opts.Addr == ":0" || tc.opts.Addr == "0" {
				if a := ln.Addr().String(); !strings.HasPrefix(a, "127.0.0.1:") {
					t.Errorf("Listen(%q) bound %s, want loopback", tc.opts.Addr, a)
				}
			}
			ln.Close()
		}
	}
}
