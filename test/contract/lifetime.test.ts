/**
 * The lifetime convention (contract/lifetime.ts): the tag a service name carries, read back as
 * written (members of a later build kept), never confused with the owner mark before it; every
 * violation of `lifetime` and `idle` at once, each naming its field; the reaper's rule.
 */
import { declaredTag, formatLifetimeTag, lifetimeVerdict, lifetimeViolations, sameDeclaration, splitLifetimeTag, untilWords, withLifetimeTag } from "../../contract/lifetime";
import { nameWithMark, ownerMark, splitMarkedName, withSpec } from "../../sdk/ownership";

const T = Date.parse("2030-05-01T10:00:00Z");
const POD = { actions: ["STOP", "TERMINATE"] as const, actionsBecause: "why", idle: true };
const CLUSTER = { actions: ["TERMINATE"] as const, actionsBecause: "a cluster cannot be stopped", idle: false };

describe("the tag", () => {
  it("reads back what it wrote, and keeps members it does not know", () => {
    const tag = declaredTag({ maxDurationSeconds: 7200, action: "STOP" }, { gpuUtilBelowPercent: 10, forSeconds: 1800, action: "TERMINATE" }, T)!;
    const name = `trainer${formatLifetimeTag({ ...tag, idleSince: "2030-05-01T10:30:00Z", other: ["future=1"] })}`;
    expect(name).toBe("trainer [lifetime until=2030-05-01T12:00:00Z then=STOP max=7200 idle=10%/1800s/TERMINATE idleSince=2030-05-01T10:30:00Z future=1]");
    const { rest, tag: read } = splitLifetimeTag(name);
    expect(rest).toBe("trainer");
    expect(read).toEqual({ until: "2030-05-01T12:00:00Z", then: "STOP", max: 7200, idle: { belowPercent: 10, forSeconds: 1800, action: "TERMINATE" }, idleSince: "2030-05-01T10:30:00Z", other: ["future=1"] });
    expect(withLifetimeTag(name, undefined)).toBe("trainer");
  });

  it("an absolute expiresAt gives its own deadline, in UTC, with no max", () => {
    expect(declaredTag({ expiresAt: "2030-05-02T08:00:00+02:00", action: "TERMINATE" }, undefined, T)).toEqual({ until: "2030-05-02T06:00:00Z", then: "TERMINATE", other: [] });
    expect(declaredTag(undefined, undefined, T)).toBeUndefined();
  });

  it("follows the owner mark a name carries, and neither hides the other", () => {
    const mark = withSpec(ownerMark({ organization: "o", project: "ml", stack: "dev", backend: "b", urn: "urn:pulumi:dev::ml::compute:index:Cluster::c", salt: "" }), {});
    const marked = nameWithMark("ray", mark);
    const tagged = withLifetimeTag(marked, declaredTag({ maxDurationSeconds: 3600, action: "TERMINATE" }, undefined, T));
    expect(splitMarkedName(tagged)).toEqual(splitMarkedName(marked));
    expect(splitMarkedName(tagged).name).toBe("ray");
    expect(splitLifetimeTag(tagged).rest).toBe(marked);
  });

  it("a name that only looks like one is the program's name", () => {
    for (const name of ["x [lifetime", "x [lifetime until=soon]x", "[lifetime]"]) expect(splitLifetimeTag(name).rest).toBe(name);
    // A member whose value does not parse is kept as written, never read as a deadline.
    expect(splitLifetimeTag("x [lifetime until=tomorrow]").tag).toEqual({ other: ["until=tomorrow"] });
  });

  it("the declaration compares without the reapers' bookkeeping", () => {
    const a = declaredTag({ maxDurationSeconds: 60, action: "STOP" }, undefined, T);
    expect(sameDeclaration(a, { ...a!, idleSince: "2030-05-01T10:00:00Z", claim: { by: "r1", at: "2030-05-01T10:00:00Z" } })).toBe(true);
    expect(sameDeclaration(a, declaredTag({ maxDurationSeconds: 120, action: "STOP" }, undefined, T))).toBe(false);
  });
});

describe("the rules", () => {
  it("every violation at once, each naming its field and its rule", () => {
    expect(lifetimeViolations(POD, { maxDurationSeconds: 30, expiresAt: "soon", action: "PAUSE" as never }, { gpuUtilBelowPercent: 0, forSeconds: 10, action: "STOP" }, T)).toEqual([
      "lifetime: give exactly one of maxDurationSeconds or expiresAt",
      "lifetime.maxDurationSeconds: must be a whole number of seconds, at least 60",
      "lifetime.expiresAt: must be an RFC 3339 date-time with a zone (2026-12-01T18:00:00Z)",
      'lifetime.action: must be "STOP" or "TERMINATE"',
      "idle.gpuUtilBelowPercent: must be a whole number from 1 to 100",
      "idle.forSeconds: must be a whole number of seconds, at least 300",
    ]);
  });

  it("a kind refuses the actions it cannot take and the rules that do not apply, saying why", () => {
    expect(lifetimeViolations(CLUSTER, { maxDurationSeconds: 3600, action: "STOP" }, { gpuUtilBelowPercent: 5, forSeconds: 600, action: "STOP" }, T)).toEqual([
      'lifetime.action: must be "TERMINATE" (a cluster cannot be stopped)',
      "idle: applies to a pod's GPUs only (use lifetime here)",
    ]);
  });

  it("a new expiresAt already past is refused; the recorded one is not new", () => {
    const past = "2030-05-01T09:00:00Z";
    expect(lifetimeViolations(POD, { expiresAt: past, action: "STOP" }, undefined, T)).toEqual([`lifetime.expiresAt: ${past} is already past`]);
    expect(lifetimeViolations(POD, { expiresAt: past, action: "STOP" }, undefined, T, past)).toEqual([]);
  });
});

describe("the reaper's rule", () => {
  const billing = { billing: true, costPerHour: 2, gpuUtil: [50] };
  const lifetime = declaredTag({ maxDurationSeconds: 7200, action: "STOP" }, undefined, T)!;
  const idle = declaredTag(undefined, { gpuUtilBelowPercent: 10, forSeconds: 1800, action: "TERMINATE" }, T)!;

  it("acts at the deadline, not before, and never on what no longer bills", () => {
    expect(lifetimeVerdict(lifetime, billing, T + 7199_000)).toEqual({ do: "nothing", why: "until 2030-05-01T12:00:00Z" });
    expect(lifetimeVerdict(lifetime, billing, T + 7200_000)).toEqual({ do: "act", action: "STOP", reason: "lifetime", since: T + 7200_000 });
    expect(lifetimeVerdict(lifetime, { ...billing, billing: false }, T + 9000_000).do).toBe("nothing");
  });

  it("idle: recorded when every GPU is under, cleared when one is busy, acted on after the window", () => {
    expect(lifetimeVerdict(idle, { ...billing, gpuUtil: [3, 12] }, T)).toEqual({ do: "nothing", why: "busy" });
    expect(lifetimeVerdict(idle, { ...billing, gpuUtil: [3, 9] }, T)).toEqual({ do: "markIdle" });
    const since = { ...idle, idleSince: "2030-05-01T10:00:00Z" };
    expect(lifetimeVerdict(since, { ...billing, gpuUtil: [3, 9] }, T + 1799_000).do).toBe("nothing");
    expect(lifetimeVerdict(since, { ...billing, gpuUtil: [3, 9] }, T + 1800_000)).toEqual({ do: "act", action: "TERMINATE", reason: "idle", since: T + 1800_000 });
    expect(lifetimeVerdict(since, { ...billing, gpuUtil: [80, 9] }, T + 1800_000)).toEqual({ do: "clearIdle" });
    // Utilisation not known (a pod not running, a GPU not reported): never idle on a guess.
    expect(lifetimeVerdict(since, { ...billing, gpuUtil: null }, T + 9000_000).do).toBe("nothing");
  });

  it("a duration counts from the current run's start; an idle record from before it is not this run's", () => {
    const runStart = T + 5 * 3600_000;
    expect(lifetimeVerdict(lifetime, { ...billing, runStart }, T + 6 * 3600_000).do).toBe("nothing");
    expect(lifetimeVerdict(lifetime, { ...billing, runStart }, runStart + 7200_000)).toMatchObject({ do: "act", since: runStart + 7200_000 });
    const stale = { ...idle, idleSince: "2030-05-01T10:00:00Z" };
    expect(lifetimeVerdict(stale, { ...billing, gpuUtil: [0], runStart }, runStart + 3600_000)).toEqual({ do: "markIdle" });
  });

  it("a deadline without an action it knows is never acted on", () => {
    expect(lifetimeVerdict(splitLifetimeTag("x [lifetime until=2030-05-01T09:00:00Z then=PAUSE]").tag!, billing, T)).toEqual({ do: "nothing", why: "a deadline without an action this build knows" });
  });

  it("says when a deadline falls, in words", () => {
    expect(untilWords(lifetime, T + 50 * 60_000)).toBe("stops in 1 h 10 m");
    expect(untilWords({ ...lifetime, then: "TERMINATE" }, T + 7500_000)).toBe("terminates at the next reap (due 5 m ago)");
  });
});
