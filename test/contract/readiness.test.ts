/** The rules of a `readiness` input, judged at preview (contract/readiness.ts): every violation at once, each naming its field. */
import { probesOf, readinessViolations, readyWorkers, statusPasses, type ReadinessContext } from "../../contract";

const pod: ReadinessContext = { accepts: ["tcp", "ssh", "http", "logLine"], refusedBecause: "only a ServerlessEndpoint has workers", ports: ["22/tcp", "8000/http"] };
const endpoint: ReadinessContext = { accepts: ["minReadyWorkers"], refusedBecause: "workers are reached through request URLs", workersMin: 1 };

describe("readiness rules", () => {
  it("accepts a pod's probes of the ports it publishes", () => {
    expect(readinessViolations({ ssh: true, http: { port: 8000, path: "/v1/models" }, tcp: { port: 8000 }, logLine: "Uvicorn running on" }, pod)).toEqual([]);
  });

  it("names every violation at once, each with its field and rule", () => {
    const violations = readinessViolations({ ssh: true, tcp: { port: 9000 }, http: { port: 7860, path: "/" }, logLine: "([", minReadyWorkers: 1 }, { ...pod, ports: ["8000/http"] });
    expect(violations).toEqual([
      expect.stringMatching(/^readiness\.minReadyWorkers: not a probe of this resource \(only a ServerlessEndpoint has workers\)/),
      expect.stringMatching(/^readiness\.ssh, ports: needs "22\/tcp" in ports/),
      expect.stringMatching(/^readiness\.tcp\.port, ports: 9000 is not in ports.*add "9000\/tcp"/),
      expect.stringMatching(/^readiness\.http\.port, ports: 7860 is not in ports.*add "7860\/http"/),
      expect.stringMatching(/^readiness\.logLine: is not a valid regular expression/),
    ]);
  });

  it("names wrong types and unknown members by path", () => {
    expect(readinessViolations({ tcp: { port: 70000 }, http: { port: 80, path: "health", expectStatus: 99 }, ssh: "yes", grpc: {} }, pod)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^readiness\.tcp\.port: /),
        expect.stringMatching(/^readiness\.http\.path: must start with "\/"/),
        expect.stringMatching(/^readiness\.http\.expectStatus: /),
        expect.stringMatching(/^readiness\.ssh: /),
        "readiness.grpc: unknown property",
      ]),
    );
  });

  it("still judges the other members when one has the wrong shape (or is not known yet at preview)", () => {
    const violations = readinessViolations({ http: { port: "04da6b54-unknown" }, tcp: { port: 9000 }, minReadyWorkers: 1 }, { ...pod, ports: ["8000/http"] });
    expect(violations).toEqual([
      expect.stringMatching(/^readiness\.http\.port: /),
      expect.stringMatching(/^readiness\.minReadyWorkers: not a probe of this resource/),
      expect.stringMatching(/^readiness\.tcp\.port, ports: 9000 is not in ports/),
    ]);
  });

  it("refuses a readiness with no probe in it (ssh: false asks for none)", () => {
    expect(readinessViolations({ ssh: false }, pod)).toEqual([expect.stringMatching(/^readiness: names no probe; set at least one of tcp, ssh, http, logLine$/)]);
    expect(probesOf({ ssh: false, logLine: "x" })).toEqual(["logLine"]);
  });

  it("leaves port rules alone while the ports are not known (a template gives them)", () => {
    expect(readinessViolations({ ssh: true, tcp: { port: 9000 } }, { ...pod, ports: undefined })).toEqual([]);
  });

  it("refuses an endpoint a worker count its minimum cannot reach", () => {
    expect(readinessViolations({ minReadyWorkers: 1 }, endpoint)).toEqual([]);
    expect(readinessViolations({ minReadyWorkers: 2 }, endpoint)).toEqual([expect.stringMatching(/^readiness\.minReadyWorkers, workers\.min: 2 ready workers need workers\.min ≥ 2 \(is 1\)/)]);
    expect(readinessViolations({ ssh: true }, endpoint)).toEqual([expect.stringMatching(/^readiness\.ssh: not a probe of this resource/)]);
    // A minimum a Hub release or a template sets is not known before create: not judged.
    expect(readinessViolations({ minReadyWorkers: 3 }, { ...endpoint, workersMin: undefined })).toEqual([]);
  });

  it("counts as ready the RUNNING and IDLE workers on the current configuration only", () => {
    const worker = (status: string, isStale = false) => ({ id: status, status, isStale, version: null, image: null, uptimeSeconds: null, gpuTypeId: null, dataCenterId: null, startedAt: null });
    expect(readyWorkers([worker("RUNNING"), worker("IDLE"), worker("IDLE", true), worker("INITIALIZING"), worker("THROTTLED"), worker("UNHEALTHY"), worker("HIBERNATING")])).toBe(2);
  });

  it("passes an http answer on any 2xx, or exactly the expected status", () => {
    expect([200, 204, 299, 301, 503].map((s) => statusPasses(s, undefined))).toEqual([true, true, true, false, false]);
    expect([200, 401].map((s) => statusPasses(s, 401))).toEqual([false, true]);
  });
});
