package query

import "testing"

// errorTypeFiles is a C# CSV reader that throws a small exception type
// named by the words of the failure it reports.
func errorTypeFiles() map[string]string {
	return map[string]string{
		"src/Csv/MissingFieldException.cs": "namespace Csv;\n\n" +
			"/// <summary>\n/// Thrown when a missing field is found while reading a record.\n/// </summary>\n" +
			"public class MissingFieldException : CsvException\n{\n" +
			"\t/// <summary>Creates a missing field exception with a message.</summary>\n" +
			"\tpublic MissingFieldException(string message) : base(message) { }\n}\n",
		"src/Csv/CsvException.cs": "namespace Csv;\n\n/// <summary>The base of the reader's exceptions.</summary>\n" +
			"public class CsvException : System.Exception\n{\n\tpublic CsvException(string message) : base(message) { }\n}\n",
		"src/Csv/CsvWriter.cs": "namespace Csv;\n\n/// <summary>Writes values as quoted text.</summary>\npublic class CsvWriter\n{\n" +
			"\tprivate readonly System.IO.TextWriter output;\n\n\tpublic CsvWriter(System.IO.TextWriter output) { this.output = output; }\n\n" +
			"\t/// <summary>Writes one value, quoted when it holds the delimiter.</summary>\n" +
			"\tpublic void WriteValue(string value) { output.Write(value.Contains(',') ? $\"\\\"{value}\\\"\" : value); }\n}\n",
		"src/Csv/CsvConfiguration.cs": "namespace Csv;\n\n/// <summary>Options of the writer and the parser.</summary>\npublic class CsvConfiguration\n{\n" +
			"\t/// <summary>The delimiter between values.</summary>\n\tpublic string Delimiter { get; set; } = \",\";\n\n" +
			"\t/// <summary>Whether values are trimmed.</summary>\n\tpublic bool TrimValues { get; set; }\n}\n",
		"src/Csv/CsvReader.cs": "namespace Csv;\n\n/// <summary>Reads records field by field.</summary>\npublic class CsvReader\n{\n" +
			"\tprivate string[] record = new string[0];\n\tprivate int row;\n\n" +
			"\t/// <summary>Gets a field of the current record by its index; when a missing field is found,\n\t/// the message names the record being read and its row.</summary>\n" +
			"\tpublic string GetField(int index)\n\t{\n" +
			"\t\tif (index >= record.Length)\n\t\t{\n" +
			"\t\t\tthrow new MissingFieldException($\"Field at index {index} does not exist in row {row}.\");\n\t\t}\n" +
			"\t\treturn record[index];\n\t}\n\n" +
			"\t/// <summary>Reads the next record.</summary>\n\tpublic bool Read()\n\t{\n\t\trow++;\n\t\treturn row < 10;\n\t}\n}\n",
	}
}

// TestTaskErrorTypeComesAfterItsUser: a change request in the words of a
// failure lists the code that raises it before the small exception type
// named by those words; one that writes the type's name lists the type
// first.
func TestTaskErrorTypeComesAfterItsUser(t *testing.T) {
	files := errorTypeFiles()
	noPrior := DefaultTuning()
	noPrior.TaskErrorTypePrior = 1
	q := "Fix the message when a missing field is found while reading a record"
	r := taskRanks(t, files, q, "src/Csv/CsvReader.cs", DefaultTuning(), noPrior)
	if r[0] != 1 {
		t.Errorf("%q: src/Csv/CsvReader.cs at rank %d, want 1", q, r[0])
	}
	if r[1] == 1 {
		t.Errorf("%q without the prior: src/Csv/CsvReader.cs at rank 1 too; the test no longer exercises it", q)
	}
	q = "Add the row to MissingFieldException's message"
	if r := taskRanks(t, files, q, "src/Csv/MissingFieldException.cs", DefaultTuning()); r[0] != 1 {
		t.Errorf("%q: src/Csv/MissingFieldException.cs at rank %d, want 1", q, r[0])
	}
}

func TestIsErrorTypeName(t *testing.T) {
	tests := map[string]bool{
		"MissingFieldException": true, "NetworkError": true, "IOException": true, "MissingImplementationError": true,
		"Error": false, "Exception": false, "errors": false, "error_codes": false, "parseError": false,
		"ErrorHandler": false, "Foo.Error": false,
	}
	for stem, want := range tests {
		if got := isErrorTypeName(stem); got != want {
			t.Errorf("isErrorTypeName(%q) = %v, want %v", stem, got, want)
		}
	}
}
