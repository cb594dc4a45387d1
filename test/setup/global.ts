/**
 * Jest's global set-up (jest.config.js), run once before any suite: dist/ made current
 * (build.ts), then the run's Pulumi home with this clone's plugins (pulumi-home.ts).
 */
import buildDist from "./build";
import { installPulumiHome } from "./pulumi-home";

export default async function globalSetup(): Promise<void> {
  buildDist();
  await installPulumiHome();
}
