// Labelled sandboxes for short jobs, and the data source that finds sandboxes by label.
// The idle timeout updates in place; the service clamps it and `appliedIdleTimeoutSeconds`
// says what it applied.
import * as compute from "pulumi-compute";

const labels = { team: "research", purpose: "eval" };

const runners = [1, 2].map(
  (i) =>
    new compute.Sandbox(`eval-${i}`, {
      image: "python:3.12-slim",
      compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 },
      idleTimeoutSeconds: 60, // below the minimum: the service applies 90
      maxLifetimeSeconds: 7200,
      egressPolicy: { mode: "ALLOW_LIST", allow: ["pypi.org", "files.pythonhosted.org"] },
      labels,
    }),
);

export const applied = runners.map((r) => r.appliedIdleTimeoutSeconds);
export const expires = runners.map((r) => r.expiresAt);
// Data sources run at program time: before the first `up` this lists what already exists.
export const existingWithLabels = compute.getSandboxes({ labels }).then((found) => found.map((s) => `${s.name} ${s.state}`));
