/**
 * TypeScript stacks recorded by earlier builds, upgraded to this one (test/e2e/upgrade-stack.ts).
 * The one update an upgrade shows is each dynamic resource's `__provider`: the code the engine
 * runs for that resource's `refresh` and `destroy` (docs/upgrades.md).
 */
import { describeUpgrades } from "./upgrade-stack";

jest.setTimeout(300_000);

describeUpgrades("typescript");
