package query

// Languages whose files each hold one type named like the file. Java's
// compiler requires a public top-level type to be in the file named for it;
// C#'s style rules (one type per file, the file named as its type) are
// followed for every type, down to a delegate, an exception or an
// attribute of a few lines. A file's name there is its type's name: the
// files channel, which matches the words of a file's path, counts again
// what the blocks (its identifiers), the doc comments and the path words
// count of that type. For a change request it lifts the small file that
// declares the type the message's words name (MissingFieldException.cs,
// ILogEventEnricher.cs) over the code that uses it, where the change is
// made (CsvReader.cs, LogContext.cs).
var oneTypeFileLanguages = map[string]bool{"csharp": true, "java": true}

// oneTypeFileWeight weighs the files channel by file for task text: w on a
// file of a one-type-per-file language, 1 on the others.
func oneTypeFileWeight(w float64) func(*fileInfo) float64 {
	return func(f *fileInfo) float64 {
		if oneTypeFileLanguages[f.language] {
			return w
		}
		return 1
	}
}
