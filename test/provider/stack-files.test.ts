import { homedir } from "node:os";
import * as path from "node:path";
import { backendIdentity, stateBackend } from "../../provider/stack-files";

/**
 * The backend part of every owner mark (sdk/ownership.ts): every runner of a team's stack must
 * derive the same one, or a repeated create after an interrupted `up` misses what the first
 * made and creates a second resource.
 */
describe("backendIdentity", () => {
  const noEnv = {};

  it("is the same for every way one team's runners reach one PostgreSQL table", () => {
    const ways = [
      "postgres://compute:old-password@db.internal:5432/pulumi?sslmode=disable",
      "postgres://compute:rotated@DB.internal:5432/pulumi?sslmode=require&connect_timeout=10",
      "postgres://ci-runner@db.internal/pulumi?table=pulumi_state",
      "postgresql://db.internal:5432/pulumi",
    ];
    expect(new Set(ways.map((url) => backendIdentity(url, noEnv)))).toEqual(new Set(["postgres://db.internal:5432/pulumi?table=pulumi_state&prefix=pulumi"]));
  });

  it("holds no credential", () => {
    expect(backendIdentity("postgres://compute:hunter2@db:5432/pulumi", noEnv)).not.toContain("hunter2");
    expect(backendIdentity("s3://user:hunter2@bucket/state?region=eu-west-1", noEnv)).not.toContain("hunter2");
  });

  it("takes from lib/pq's parameters and the PG* variables what the URL leaves out", () => {
    // `postgres:///pulumi`: 3.248 cannot open a bare `postgres://` (Go turns it into `postgres:`).
    expect(backendIdentity("postgres:///pulumi", { PGHOST: "DB.internal", PGPORT: "6432", PGPASSWORD: "hunter2" })).toBe("postgres://db.internal:6432/pulumi?table=pulumi_state&prefix=pulumi");
    expect(backendIdentity("postgres:///pulumi?host=db.internal&port=6432", noEnv)).toBe("postgres://db.internal:6432/pulumi?table=pulumi_state&prefix=pulumi");
    // lib/pq's defaults: port 5432, the database named after the user.
    expect(backendIdentity("postgres://ci@localhost", noEnv)).toBe("postgres://localhost:5432/ci?table=pulumi_state&prefix=");
  });

  it("counts the URL's path, which the engine puts before every key: with it and without it are two stores", () => {
    expect(backendIdentity("postgres://db/pulumi", noEnv)).not.toBe(backendIdentity("postgres://db", { PGDATABASE: "pulumi" }));
  });

  it("folds the table's name as PostgreSQL folds the engine's unquoted name", () => {
    expect(backendIdentity("postgres://db/pulumi?table=Team_State", noEnv)).toBe(backendIdentity("postgres://db/pulumi?table=team_state", noEnv));
  });

  it("tells apart what keeps state elsewhere: another server, database or table", () => {
    const identities = [
      "postgres://db-a:5432/pulumi",
      "postgres://db-b:5432/pulumi",
      "postgres://db-a:5433/pulumi",
      "postgres://db-a:5432/other",
      "postgres://db-a:5432/pulumi?table=team_b",
    ].map((url) => backendIdentity(url, noEnv));
    expect(new Set(identities).size).toBe(identities.length);
  });

  it("keeps a bucket's path and an S3-compatible server's endpoint, not its other options", () => {
    expect(backendIdentity("s3://state-bucket/team?region=eu-west-1&profile=ci", noEnv)).toBe("s3://state-bucket/team");
    expect(backendIdentity("s3://state?endpoint=http://127.0.0.1:9000&use_path_style=true", noEnv)).toBe("s3://state?endpoint=http://127.0.0.1:9000");
    expect(backendIdentity("azblob://state?storage_account=teama&sas=secret", noEnv)).toBe("azblob://state?storage_account=teama");
    expect(backendIdentity("https://api.pulumi.com", noEnv)).toBe("https://api.pulumi.com/");
  });

  it("makes a local path absolute, as before (marks of existing file-backend stacks do not change)", () => {
    expect(backendIdentity("file://relative/state", noEnv)).toBe(`file://${path.resolve("relative/state")}`);
    expect(backendIdentity("file://~/state", noEnv)).toBe(`file://${path.join(homedir(), "state")}`);
    expect(backendIdentity("file:///var/state", noEnv)).toBe("file:///var/state");
  });

  it("is COMPUTE_STATE_BACKEND_ID where a team sets it, for runners that reach one backend by different addresses", () => {
    const ci = { PULUMI_BACKEND_URL: "postgres://ci@db.internal:5432/pulumi", COMPUTE_STATE_BACKEND_ID: "team-state" };
    const operator = { PULUMI_BACKEND_URL: "postgres://ci@10.0.4.7:5432/pulumi", COMPUTE_STATE_BACKEND_ID: "team-state" };
    expect(stateBackend(ci)).toBe("team-state");
    expect(stateBackend(operator)).toBe(stateBackend(ci));
    expect(stateBackend({ PULUMI_BACKEND_URL: "postgres://ci@db.internal:5432/pulumi" })).toBe("postgres://db.internal:5432/pulumi?table=pulumi_state&prefix=pulumi");
  });
});
