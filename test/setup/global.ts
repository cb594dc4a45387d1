/**
 * Jest's global set-up (jest.config.js), run once before any suite: dist/ made current
 * (build.ts), then the run's Pulumi home with this clone's plugins (pulumi-home.ts), and the
 * deferred start of @pulumi/pulumi (lazy-pulumi-start.js) for every Node.js process started
 * from here on: jest's workers, and through them the engine's programs, dynamic providers,
 * policy packs and plugins.
 */
import * as path from "node:path";
import buildDist from "./build";
import { installPulumiHome } from "./pulumi-home";

export default async function globalSetup(): Promise<void> {
  buildDist();
  await installPulumiHome();
  const preload = `--require ${JSON.stringify(path.join(__dirname, "lazy-pulumi-start.js"))}`;
  if (!process.env.NODE_OPTIONS?.includes(preload)) process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, preload].filter(Boolean).join(" ");
}
