// Bundles the extension into one file (dist/extension.js); `vscode` stays external.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
await esbuild.build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  // ES modules first: jsonc-parser's UMD build loads its parts with a require esbuild cannot see.
  mainFields: ["module", "main"],
  target: "node18",
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
});
console.log(`esbuild: dist/extension.js${production ? " (production)" : ""}`);
