// Package testkit is what the project's tests share: repositories to
// index, waits with a deadline, the test binary run again as a child
// process (as the viberag command, as the holder of a lock, as an
// unprivileged user, with its files limited as on a full disk), faults
// to inject, an OpenAI-compatible embedding server, and real MCP client
// sessions over stdio, HTTP or raw JSON-RPC lines.
//
// It imports none of the project's packages, so that every package's
// tests, internal or external, may use it; indextest, beside it, opens,
// builds and pushes indexes for the tests of packages above tables and
// indexer.
//
// What it offers, by file:
//
//   - files.go: Fixture copies fixtures/<name> into a temporary directory,
//     WriteFiles and WriteFile write a tree, ReadTree reads one back, Git
//     runs git away from the machine's configuration.
//   - wait.go: Eventually polls a condition, Steady waits for one to hold
//     a while, Within bounds a call (a hang fails, it is not a timing
//     assertion), Buffer is a bytes.Buffer safe for a writer and a reader.
//   - child.go: Main (a package's TestMain) turns a child started by
//     Command into one of the package's Roles; Run waits for a child with a
//     hang guard, Hold keeps one that holds something until released,
//     Script writes a shell script that starts a role, LimitFileSize makes
//     a child's writes fail as on a full disk.
//   - user_unix.go: Unprivileged runs children as a user file modes bind
//     (uid 65534 when the tests run as root), AsUnprivileged reruns the
//     calling test as that user.
//   - faults.go, faults_unix.go: FIFO swaps a named pipe in for a file,
//     Overwrite writes garbage into one, SQLitePageSize reads an SQLite
//     file's page size.
//   - embedserver.go: EmbedServer, an OpenAI-compatible embeddings API
//     whose faults a test sets.
//   - mcpclient.go, peer.go: StdioSession and HTTPSession connect a real
//     go-sdk client, Call and CallOK call tools; Peer speaks raw JSON-RPC
//     lines, for what a client library would never send.
package testkit
