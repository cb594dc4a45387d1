/**
 * The one settings rule every face applies (SDK options, CLI flags, a stack's configuration):
 * the first non-blank source wins, then the environment; base URL and key are required.
 */
import { fromStackConfig, resolveSettings } from "../../sdk/config";

const ENV = { COMPUTE_BASE_URL: "http://env.example", COMPUTE_API_KEY: "env-key", COMPUTE_TEAM_ID: "env-team" };

describe("resolveSettings", () => {
  it("takes each setting from the first source that has it, then the environment", () => {
    const resolved = resolveSettings([{ apiKey: "flag-key" }, { apiKey: "stack-key", teamId: "stack-team" }], ENV);
    expect(resolved).toEqual({ ok: true, settings: { baseUrl: "http://env.example", apiKey: "flag-key", teamId: "stack-team" } });
  });

  it("passes over blank values and trims the others", () => {
    const resolved = resolveSettings([{ baseUrl: "  ", apiKey: " key " }], { COMPUTE_BASE_URL: " http://env.example " });
    expect(resolved).toEqual({ ok: true, settings: { baseUrl: "http://env.example", apiKey: "key", teamId: undefined } });
  });

  it("drops a trailing slash or /v2 from the base URL", () => {
    const resolved = resolveSettings([{ baseUrl: "https://api.example/v2/", apiKey: "k" }], {});
    expect(resolved.ok && resolved.settings.baseUrl).toBe("https://api.example");
  });

  it("lists every problem, base URL first, and never the key", () => {
    expect(resolveSettings([], {})).toEqual({
      ok: false,
      problems: [
        { setting: "baseUrl", problem: "missing" },
        { setting: "apiKey", problem: "missing" },
      ],
    });
    const resolved = resolveSettings([{ baseUrl: "ftp://example.com", apiKey: "secret-key" }], {});
    expect(resolved).toEqual({ ok: false, problems: [{ setting: "baseUrl", problem: "not-http", value: "ftp://example.com" }] });
    expect(JSON.stringify(resolved)).not.toContain("secret-key");
  });
});

describe("fromStackConfig", () => {
  it("reads each setting under the package's namespace, compute:<setting>", () => {
    const config: Record<string, string> = { "compute:baseUrl": "http://stack.example", "compute:apiKey": "stack-key", "other:apiKey": "not-this" };
    expect(fromStackConfig({ get: (key) => config[key] })).toEqual({ baseUrl: "http://stack.example", apiKey: "stack-key", teamId: undefined });
  });
});
