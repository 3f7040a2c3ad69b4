package query

import "testing"

// TestProjectDirRoles: .NET and Xcode name a test, benchmark or sample
// project after the project it serves, with a suffix word; its files are
// tests or auxiliary code like those under tests/ or samples/.
func TestProjectDirRoles(t *testing.T) {
	tests := []struct {
		path      string
		test, aux bool
	}{
		{"src/FluentValidation.Tests/TestValidator.cs", true, false},
		{"test/Polly.Core.Tests/Helpers/TestUtilities.cs", true, false},
		{"tests/Moq.Tests.FSharpTypes/IHasEvent.cs", true, false},
		{"src/Foo.UnitTests/Stubs.cs", true, false},
		{"src/Foo.IntegrationTests/Fixture.cs", true, false},
		{"test/Polly.Specs/Helpers/Constants.cs", true, false},
		{"test/Polly.AotTest/Program.cs", true, false},
		{"src/UnitTests/Bug/MapAtRuntime/Model.cs", true, false},
		{"src/IntegrationTests/ExplicitExpansion/Model.cs", true, false},
		{"MoyaTests/TestHelpers.swift", true, false},
		{"App/AppUITests/Steps.swift", true, false},
		{"src/FluentValidation.Tests.Benchmarks/Program.cs", true, false},
		{"performance/CsvHelper.Benchmarks/Program.cs", false, true},
		{"samples/MediatR.Examples.Autofac/Program.cs", false, true},
		{"src/Foo.Samples/Program.cs", false, true},
		{"RxExample/RxExample/Services/Wikipedia.swift", false, true},
		{"Benchmarks/NIOPosixBenchmarks/Main.swift", false, true},
		{"coil-core/src/commonTest/kotlin/coil3/RequestTest.kt", true, false},
		{"formats/protobuf/jvmTest/src/Proto.kt", true, false},
		{"coil-core/src/androidInstrumentedTest/kotlin/Bitmaps.kt", true, false},
		{"app/src/integrationTest/java/AppIT.java", true, false},
		{"coil-core/src/commonMain/kotlin/coil3/Request.kt", false, false},
		{"kotlinx-coroutines-test/common/src/TestBuilders.kt", false, false},
		{"formats/json-io/commonMain/src/Json.kt", false, false},
		// Libraries for tests, shipped as code; one-word and versioned names.
		{"src/Polly.Testing/ResiliencePipelineExtensions.cs", false, false},
		{"RxTest/TestScheduler.swift", false, false},
		{"src/Serilog/Core/Logger.cs", false, false},
		{"src/Contest.Core/Latest.cs", false, false},
		{"typings/ts3.1-typing/moment.d.ts", false, false},
		{"testdata/example.com/pkg/a.go", true, false},
		{"src/example.com/pkg/a.go", false, false},
		{".github/workflows/a.yml", false, false},
	}
	for _, tc := range tests {
		if got := isTestPath(tc.path); got != tc.test {
			t.Errorf("isTestPath(%q) = %v, want %v", tc.path, got, tc.test)
		}
		if got := isAuxPath(tc.path); got != tc.aux {
			t.Errorf("isAuxPath(%q) = %v, want %v", tc.path, got, tc.aux)
		}
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
