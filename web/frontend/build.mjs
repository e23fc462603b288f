// Builds the page into ../static/: app.<hash>.js, app.<hash>.css, index.html, icon.svg and
// manifest.json. The same sources give the same names (esbuild's content hashes). Only
// this build's own older app.*.js/css files (named in the previous manifest) are removed.
//
//   npm run build            (from web/frontend/)

import { readFile, writeFile, unlink, mkdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = resolve(here, "../static");
// Relative to the page (/table, /replay): "static/…" also works under a path prefix.
const base = "static/";
const OWN = /^app\.[A-Za-z0-9]+\.(js|css)$/;

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: [
    { in: "src/main.ts", out: "app" },
    { in: "src/style.css", out: "app" },
  ],
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2020", "chrome92", "firefox90", "safari15"],
  entryNames: "[name].[hash]",
  outdir,
  write: false,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
});

const files = { js: null, css: null };
for (const file of result.outputFiles) {
  const name = basename(file.path);
  if (name.endsWith(".js")) files.js = { name, file };
  else if (name.endsWith(".css")) files.css = { name, file };
}
if (!files.js || !files.css) throw new Error("esbuild made no app.*.js or app.*.css");

const index = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="dark">
<meta name="theme-color" content="#10401f">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>cardtable</title>
<link rel="icon" href="${base}icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${base}${files.css.name}">
<script type="module" src="${base}${files.js.name}"></script>
</head>
<body>
<div id="root"><noscript><p class="noscript">cardtable needs JavaScript to show the table.</p></noscript></div>
</body>
</html>
`;

const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect x="4" y="4" width="56" height="56" rx="12" fill="#185c34"/>
<rect x="17" y="10" width="32" height="44" rx="5" fill="#fcfcfa" stroke="#0f3f23" stroke-width="2"/>
<path d="M33 20c-4 6-10 9-10 15a5 5 0 0 0 9 3l-2 7h6l-2-7a5 5 0 0 0 9-3c0-6-6-9-10-15z" fill="#c81e28"/>
</svg>
`;

const manifest = {
  js: files.js.name,
  css: files.css.name,
  index: "index.html",
  files: [files.js.name, files.css.name, "icon.svg", "index.html"],
  immutable: [files.js.name, files.css.name],
};
const outputs = {
  [files.js.name]: Buffer.from(files.js.file.contents),
  [files.css.name]: Buffer.from(files.css.file.contents),
  "icon.svg": Buffer.from(icon),
  "index.html": Buffer.from(index),
  "manifest.json": Buffer.from(JSON.stringify(manifest, null, 2) + "\n"),
};

// --check (npm run verify, in CI): the committed build is what these sources build to.
if (process.argv.includes("--check")) {
  const stale = [];
  for (const [name, contents] of Object.entries(outputs)) {
    let committed = null;
    try {
      committed = await readFile(join(outdir, name));
    } catch {
      committed = null;
    }
    if (committed === null || !committed.equals(contents)) stale.push(name);
  }
  if (stale.length) {
    console.error(`web/static is not the build of web/frontend (${stale.join(", ")}): ` +
      "run npm run build in web/frontend and commit web/static.");
    process.exit(1);
  }
  console.log("web/static is the build of web/frontend");
  process.exit(0);
}

await mkdir(outdir, { recursive: true });
let previous = {};
try {
  previous = JSON.parse(await readFile(join(outdir, "manifest.json"), "utf8"));
} catch {
  previous = {};
}

for (const [name, contents] of Object.entries(outputs)) {
  await writeFile(join(outdir, name), contents);
}

// The previous build's own files, by exact name, unless this build made them again.
for (const name of previous.immutable ?? [previous.js, previous.css]) {
  if (typeof name !== "string" || !OWN.test(name) || manifest.immutable.includes(name)) continue;
  try {
    await unlink(join(outdir, name));
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
}

for (const { name, file } of [files.js, files.css]) {
  console.log(`${name}  ${(file.contents.length / 1024).toFixed(1)} KB`);
}
