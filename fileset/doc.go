// Package fileset decides which files of a repository are indexed, and
// reads them safely.
//
// It owns one job: given a root, list the candidate files (Select) and
// account for every file or directory it leaves out, with a reason
// (Skipped, the Skip* constants); Select's doc gives the rules in the
// order they apply.
// Paths leave the package in their index form (IndexPath), which JSON
// and text can carry whatever bytes a name holds; Join turns one back into
// the file's path on disk.
// Content rules that need the bytes (binary, UTF-8) are CheckContent, run
// by the caller after ReadRegular, which reads a file only if it is still a
// regular file within the size limit and never blocks on a FIFO or device,
// and DecodeText, which turns UTF-16 with a byte order mark into the UTF-8
// text the index holds (ReadText does both reads in one).
// Git is the one way viberag runs git (scrubbed environment, no optional
// locks); GitHead and InGitWorkTree are the two questions other packages
// ask it.
//
// The name is a noun for what Select returns: the set of files an index
// covers. The package was split out of extract, which it touches only
// through extract.LanguageOf (a secret-looking name is spared when it
// names source code); extract reads one file's facts and knows nothing of
// repositories, walks or git.
package fileset
