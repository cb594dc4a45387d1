/** Jest's global teardown (jest.config.js): what global.ts set up for the run is removed. */
import { removePulumiHome } from "./pulumi-home";

export default function globalTeardown(): void {
  removePulumiHome();
}
