// Builds the page into ../static/: app.<hash>.js, app.<hash>.css, index.html, icon.svg and
// manifest.json, and discord.<hash>.js: Discord's Embedded App SDK, which app.js imports
// only when the page runs as a Discord Activity (src/activity.ts), so the table's own
// bundle stays as small as before. The same sources give the same names (esbuild's
// content hashes). Only this build's own older files (named in the previous manifest)
// are removed.
//
//   npm run build            (from web/frontend/)
//   node build.mjs --check   (npm run verify: web/static is what the sources build to)
//   node build.mjs --mock OUTDIR
//       TESTS ONLY (tests/web/test_activity_browser.py): the same page into OUTDIR, with
//       the SDK's DiscordSDKMock (test/discord-sdk.ts) in place of Discord's SDK. Never
//       into web/static.

import { readFile, writeFile, unlink, mkdir } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const staticDir = resolve(here, "../static");
// Relative to the page (/table, /replay, /): "static/…" also works under a path prefix.
const base = "static/";
const OWN = /^(app|discord)\.[A-Za-z0-9]+\.(js|css)$/;

const check = process.argv.includes("--check");
const mockAt = process.argv.indexOf("--mock");
const mockDir = mockAt >= 0 ? process.argv[mockAt + 1] : undefined;
if (mockAt >= 0 && !mockDir) throw new Error("--mock needs the directory to build into");
const outdir = mockDir ? resolve(mockDir) : staticDir;
if (mockDir && (outdir === staticDir || outdir.startsWith(staticDir + sep))) {
  throw new Error("--mock builds a test page: never into web/static");
}

// --mock: src/'s import of Discord's SDK resolves to the test's mock of it (whose own
// import of the SDK, for DiscordSDKMock, stays the real package).
const mockDiscord = {
  name: "mock-discord-sdk",
  setup(build) {
    const src = resolve(here, "src") + sep;
    build.onResolve({ filter: /^@discord\/embedded-app-sdk$/ }, (args) =>
      args.importer.startsWith(src) ? { path: resolve(here, "test/discord-sdk.ts") } : undefined);
  },
};

const common = {
  absWorkingDir: here,
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2020", "chrome92", "firefox90", "safari15"],
  entryNames: "[name].[hash]",
  outdir,
  write: false,
  metafile: true,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
};

// Two builds, not esbuild's splitting: with splitting, the helpers both bundles use go
// to a shared chunk that app.js would import at load (one more request before the table
// shows). So discord.<hash>.js is built whole first, and app.js gets its name as a
// constant (DISCORD_SDK, external) for its import() of it.
const sdk = await esbuild.build({
  ...common,
  entryPoints: [{ in: "src/discord.ts", out: "discord" }],
  plugins: mockDir ? [mockDiscord] : [],
});
const discordFile = only(sdk.outputFiles, ".js");
const discordName = basename(discordFile.path);
const app = await esbuild.build({
  ...common,
  entryPoints: [
    { in: "src/main.ts", out: "app" },
    { in: "src/style.css", out: "app" },
  ],
  define: { DISCORD_SDK: JSON.stringify(`./${discordName}`) },
  external: ["./discord.*"],
});
const files = {
  js: { name: basename(only(app.outputFiles, ".js").path), file: only(app.outputFiles, ".js") },
  css: { name: basename(only(app.outputFiles, ".css").path), file: only(app.outputFiles, ".css") },
};
const lazy = [{ name: discordName, file: discordFile }]; // app.js imports it on demand
// app.js imports nothing at load, and Discord's SDK only through import().
const imports = Object.values(app.metafile.outputs).flatMap((o) => o.imports);
if (imports.some((i) => i.kind !== "dynamic-import" || i.path !== `./${discordName}`)) {
  throw new Error(`app.js imports ${JSON.stringify(imports)}: only import(DISCORD_SDK) may be`);
}
for (const { name } of [files.js, files.css, ...lazy]) {
  if (!OWN.test(name)) throw new Error(`esbuild made ${name}: name it in OWN first`);
}

function only(outputs, ending) {
  const found = outputs.filter((o) => o.path.endsWith(ending));
  if (found.length !== 1) throw new Error(`esbuild made ${found.length} *${ending} files`);
  return found[0];
}

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

const hashed = [files.js, files.css, ...lazy];
const manifest = {
  js: files.js.name,
  css: files.css.name,
  lazy: lazy.map(({ name }) => name),
  index: "index.html",
  files: [...hashed.map(({ name }) => name), "icon.svg", "index.html"],
  immutable: hashed.map(({ name }) => name),
};
const outputs = {
  ...Object.fromEntries(hashed.map(({ name, file }) => [name, Buffer.from(file.contents)])),
  "icon.svg": Buffer.from(icon),
  "index.html": Buffer.from(index),
  "manifest.json": Buffer.from(JSON.stringify(manifest, null, 2) + "\n"),
};

// --check (npm run verify, in CI): the committed build is what these sources build to.
if (check && !mockDir) {
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

// The previous build's own files, by exact name, unless this build made them again (a
// --mock build's directory is the test's: nothing there is removed).
for (const name of mockDir ? [] : previous.immutable ?? [previous.js, previous.css]) {
  if (typeof name !== "string" || !OWN.test(name) || manifest.immutable.includes(name)) continue;
  try {
    await unlink(join(outdir, name));
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
}

for (const { name, file } of hashed) {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`${name}  ${kb(file.contents.length)} (gzip ${kb(gzipSync(file.contents).length)})`);
}
