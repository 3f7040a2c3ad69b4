// tsrefs answers refsbench's questions with the TypeScript language service.
//
//   node tsrefs.js TYPESCRIPT_DIR
//
// TYPESCRIPT_DIR is a directory whose node_modules holds the typescript
// package (see README.md). It reads JSON requests from stdin, one a line,
// and writes one answer a line. The first request is
// {"root": DIR, "files": [absolute paths]}: the language service is built
// over the tsconfig.json nearest above DIR (its compiler options and files)
// plus the given files, and answers {"version", "files"} (the program's
// files). Every later request is {"path", "line" (1-based), "column"
// (0-based UTF-16), "name"} and is answered with {"refs": [{"path",
// "line"}]}: findReferences at that position, every group flattened,
// definitions included; or {"refs": [], "error": …}.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

const ts = require(path.resolve(process.argv[2], 'node_modules', 'typescript'));

let service = null;
let program = null;
let version = 0;

function setup(root, files) {
  const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
  let options = { allowJs: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, skipLibCheck: true };
  let names = [];
  let base = root;
  if (configPath) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    base = path.dirname(configPath);
    const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, base);
    options = Object.assign({}, parsed.options, { noEmit: true });
    names = parsed.fileNames;
  }
  const rootNames = Array.from(new Set(names.concat(files))).sort();
  const snapshots = new Map();
  const host = {
    getScriptFileNames: () => rootNames,
    getScriptVersion: () => String(version),
    getScriptSnapshot: (f) => {
      if (!snapshots.has(f)) {
        snapshots.set(f, fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined);
      }
      return snapshots.get(f);
    },
    getCurrentDirectory: () => base,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  service = ts.createLanguageService(host, ts.createDocumentRegistry());
  program = service.getProgram();
  const inRoot = program.getSourceFiles().map((sf) => path.resolve(sf.fileName))
    .filter((f) => f.startsWith(root + path.sep)).sort();
  return { version: 'typescript ' + ts.version, files: inRoot };
}

function references(req) {
  const sf = program.getSourceFile(req.path);
  if (!sf) {
    return { refs: [], error: 'not in the program: ' + req.path };
  }
  const pos = ts.getPositionOfLineAndCharacter(sf, req.line - 1, req.column);
  if (sf.text.substr(pos, req.name.length) !== req.name) {
    return { refs: [], error: 'the name is not at ' + req.line + ':' + req.column };
  }
  const groups = service.findReferences(req.path, pos) || [];
  const refs = [];
  for (const g of groups) {
    for (const r of g.references) {
      const rf = program.getSourceFile(r.fileName);
      if (!rf) continue;
      refs.push({ path: path.resolve(r.fileName), line: ts.getLineAndCharacterOfPosition(rf, r.textSpan.start).line + 1 });
    }
  }
  return { refs };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let out;
  try {
    const req = JSON.parse(line);
    out = service === null ? setup(req.root, req.files) : references(req);
  } catch (e) {
    out = { refs: [], error: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
