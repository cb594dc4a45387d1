/**
 * YAML stacks recorded by earlier builds (the native plugin), upgraded to this one
 * (test/e2e/upgrade-stack.ts): no update at all.
 */
import { describeUpgrades } from "./upgrade-stack";

jest.setTimeout(300_000);

describeUpgrades("yaml");
