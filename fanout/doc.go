// Package fanout answers searches over many repositories of a shared
// store (tables/postgres): one query.Planner per repository, run in
// parallel, their answers merged in Go. A search over several
// repositories runs in two phases: each repository ranks
// (query.Planner.Rank: hits in order, no snippets, exact text counted
// only as far as its share of a page, the total then a lower bound), the
// drafts merge, and only the hits of the merged page are finished
// (snippets made) by their repositories: 50 repositories cost 50
// rankings and one page of snippets. One repository answers in full
// (query.Planner.Search), as a local index of the same tree does. A repository whose shard does not
// answer is left out and named, so an answer from the others is marked
// partial instead of failing or hanging. The planners of one shard's
// repositories read through one postgres.Batch per call, so a call's
// round trips to a shard do not grow with its repositories. With an embedder (Options.Embedder),
// repositories pushed with vectors of its model search with them.
//
// References over several repositories run in two phases too: each
// repository judges and orders its lines (query.Planner.RankRefs), the
// counts place them in one order (resolved lines of every repository,
// then likely, then name only) that offset and limit page through, and
// each repository makes snippets only for its part of the page. A
// server's Searcher (Options.KeepGoChecks) keeps the Go packages the
// lookups type-checked in one cache that every repository's planner
// shares (query.Options.GoChecks): one bound for the server, however
// many repositories it serves, each package kept under its repository
// (query.Options.GoChecksScope), never serving another's lookups.
//
// Access is the caller's: Repos resolves a caller's access and the
// repositories a request names (scope.repo, names or globs) to the
// repositories to read, and every planner reads only its own
// repository's rows, so a repository the caller may not read is never
// read at all, and reads exactly as one that does not exist.
//
// Ids are unique across repositories: a hit's id is the planner's id, "@"
// and the repository's name (SplitID undoes it), and every hit carries
// its repository.
package fanout
