package postgres

import (
	"net"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// shardAddress is where a database URL points, for messages: host:port
// and database, without user or password. A dropped connection's error
// ("connection reset by peer", "terminating connection due to
// administrator command") names no server, or only a socket, so every
// error of work on a shard names the shard this way (shardLabel).
func shardAddress(rawURL string) string {
	cfg, err := pgconn.ParseConfig(rawURL)
	if err != nil {
		return Redact(rawURL)
	}
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
}

// shardLabel names a shard in messages: its name in the catalog and its
// address.
func shardLabel(name, rawURL string) string {
	return "shard " + name + " (" + shardAddress(rawURL) + ")"
}

// ShardAddress returns the address of the shard called name (host:port
// and database) once s has read from it, else "".
func (s *Store) ShardAddress(name string) string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp := s.shards[name]; sp != nil {
		return shardAddress(sp.url)
	}
	return ""
}
