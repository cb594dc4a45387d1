/** Where `compute cost --stack` looks for a `file://` backend's history: the URL's folder, `~` being the user's home as the engine reads it. */
import { homedir } from "node:os";
import * as path from "node:path";
import { backendDir } from "../../cli/stack-resources";

test("a file:// backend URL names its folder; file://~ the user's home", () => {
  expect(backendDir("file:///srv/pulumi-state")).toBe("/srv/pulumi-state");
  expect(backendDir("file://~")).toBe(homedir());
  expect(backendDir("file://~/states/team")).toBe(path.join(homedir(), "states", "team"));
});
