package fileset

import (
	"strings"

	"github.com/viberag/viberag/extract"
)

// The lookup tables below are read-only.

// alwaysSkipDirs are directory names skipped wherever they appear:
// dependencies, build outputs, caches and version-control metadata. They
// are skipped even when tracked (a vendored tree is someone else's code)
// and counted once per directory, not per file.
var alwaysSkipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true,
	"node_modules": true, "bower_components": true, "vendor": true,
	"target": true, "dist": true, "build": true,
	"__pycache__": true, ".venv": true, "venv": true, ".tox": true,
	".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	".gradle": true, ".next": true, ".nuxt": true, ".terraform": true,
}

// lockFiles are dependency lock files that do not end in ".lock" (those
// are all lock files), lower-cased. They are generated, long and full of
// hashes: noise to a code search.
var lockFiles = map[string]bool{
	"package-lock.json":   true,
	"npm-shrinkwrap.json": true,
	"pnpm-lock.yaml":      true,
	"bun.lockb":           true,
	"go.sum":              true,
	"go.work.sum":         true,
	"packages.lock.json":  true, // NuGet
}

func isLockFile(name, lower string) bool {
	return lockFiles[lower] || strings.HasSuffix(lower, ".lock")
}

// isSecretName reports whether a lower-cased base name is one that
// usually holds credentials: env files, private keys and certificates,
// and anything calling itself a secret or credentials. IndexSecrets
// overrides it.
//
// The name rules (`*secret*`, `*credentials*`) spare source files of a
// language we parse (secret_store.go, credentials.py): those hold code
// that handles secrets, and hiding them would hide the very code an agent
// is asked about. Key, certificate and env files are skipped whatever
// their names.
func isSecretName(lower string) bool {
	switch {
	case strings.HasPrefix(lower, ".env"), strings.HasSuffix(lower, ".env"),
		strings.HasSuffix(lower, ".pem"), strings.HasSuffix(lower, ".key"),
		strings.HasSuffix(lower, ".p12"), strings.HasSuffix(lower, ".pfx"),
		strings.HasPrefix(lower, "id_rsa"), strings.HasPrefix(lower, "id_dsa"),
		strings.HasPrefix(lower, "id_ecdsa"), strings.HasPrefix(lower, "id_ed25519"):
		return true
	case strings.Contains(lower, "credentials"), strings.Contains(lower, "secret"):
		name := extract.LanguageOf(lower).Name
		return name == "text" || name == "markdown"
	}
	switch lower {
	case ".netrc", ".pgpass", ".htpasswd":
		return true
	}
	return false
}

// isMinified reports minified JavaScript and CSS: one enormous line each.
func isMinified(lower string) bool {
	for _, suf := range []string{".min.js", ".min.mjs", ".min.cjs", ".min.css"} {
		if strings.HasSuffix(lower, suf) {
			return true
		}
	}
	return false
}

// binaryExts are extensions (lower-case, without the dot) of binary
// formats, skipped by name so they are never read. Content that slips
// through is still caught by CheckContent; SVG and other text formats are
// deliberately absent.
var binaryExts = func() map[string]bool {
	m := make(map[string]bool)
	for _, group := range []string{
		// images
		"png jpg jpeg gif bmp ico icns webp tif tiff psd heic heif avif raw cr2 nef xcf",
		// archives and compressed files
		"zip tar gz tgz bz2 tbz2 xz txz zst lz lz4 lzma 7z rar cab z",
		// fonts
		"ttf otf woff woff2 eot",
		// executables, libraries, objects and bytecode
		"exe dll so dylib bin o a obj lib ko elf pyc pyo pyd class jar war ear wasm dex apk aab ipa msi deb rpm dmg iso img app",
		// documents
		"pdf doc docx xls xlsx ppt pptx odt ods odp rtf epub",
		// audio and video
		"mp3 mp4 m4a m4v aac wav flac ogg oga opus mov avi mkv webm wmv flv mpg mpeg 3gp",
		// databases and data blobs
		"db sqlite sqlite3 mdb accdb parquet avro orc pkl pickle npy npz h5 hdf5 onnx pt pth safetensors ckpt tflite",
		// other
		"swf fla blend fbx glb unitypackage",
	} {
		for _, e := range strings.Fields(group) {
			m[e] = true
		}
	}
	return m
}()
