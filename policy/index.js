// The entry the engine's policy-pack runner loads (`--policy-pack <this folder>`). The pack is
// written in TypeScript and compiled with the rest of the package (`npm run build` → dist/), so
// this file only points at the build: the runner would otherwise type-check the sources with
// ts-node on every preview.
require("../dist/policy/pack.js");
