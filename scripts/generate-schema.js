// Writes schema.json at the repository root: the native plugin's package schema
// (provider/native/schema.ts) for the version in package.json. Run `npm run schema` after
// changing an input, output or function list; test/provider/schema.test.ts fails until then.
// The source is loaded through ts-node rather than from dist/, so a stale build cannot leak in.
"use strict";
const { writeFileSync } = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
require("ts-node").register({ project: path.join(root, "tsconfig.json"), transpileOnly: true });
const { packageSchema } = require(path.join(root, "provider/native/schema.ts"));
const { version } = require(path.join(root, "package.json"));

const file = path.join(root, "schema.json");
writeFileSync(file, `${JSON.stringify(packageSchema(version), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file) || file} (compute ${version})`);
