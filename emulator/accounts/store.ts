/**
 * Users, accounts (personal and team), API keys, console sessions and the account's SSH keys.
 *
 * Balances, quotas and limits live on the account the request acts for; rate-limit counters are
 * kept per user (see rate-limit.ts). Registered SSH keys feed `startSsh` (PUBLIC_KEY injection).
 */
import type { AccountPatch } from "../control/schemas";
import type { AccountFixture, Fixture } from "../fixture";
import { Keyed, byId } from "../keyed";
import type { ResourceModule } from "../module";
import { parseMillis } from "../time";

/** As the fixture defines it (defaults applied); balance, quotas and keys change in place. */
export type AccountRecord = AccountFixture;

interface UserRecord {
  id: string;
  name: string;
  email: string;
  accountId: string;
}

interface KeyRecord {
  key: string;
  name: string;
  userId: string;
  accountId: string;
  scopes: string[];
  expiresAt?: number;
}

interface SessionRecord {
  token: string;
  userId: string;
  expiresAt?: number;
}

export class Accounts implements ResourceModule {
  /** The accounts, changed in place (balance, quotas, keys); the state file saves them. */
  records = byId<AccountRecord>([]);
  // From the fixture, replaced whole on a reset or a restore; read only.
  users = byId<UserRecord>([]);
  apiKeys = new Keyed<KeyRecord>([], (k) => k.key);
  sessions = new Keyed<SessionRecord>([], (s) => s.token);

  reset(fixture: Fixture): void {
    this.loadIdentities(fixture);
    this.records = byId(fixture.accounts.map((a) => structuredClone(a)));
  }

  snapshot(): AccountRecord[] {
    return this.records.all();
  }

  restore(slice: unknown, fixture: Fixture): void {
    this.loadIdentities(fixture);
    this.records = byId(slice as AccountRecord[]);
  }

  private loadIdentities(fixture: Fixture): void {
    const expiring = <E extends { expiresAt?: string }>(entry: E) => ({ ...entry, expiresAt: entry.expiresAt ? parseMillis(entry.expiresAt) : undefined });
    this.users = byId(fixture.users.map((u) => ({ ...u })));
    this.apiKeys = new Keyed(fixture.apiKeys.map(expiring), (k) => k.key);
    this.sessions = new Keyed(fixture.sessions.map(expiring), (s) => s.token);
  }

  /**
   * Issues (or replaces) an API key, as the console would: the control plane's way to rotate a
   * key in a test. Kept in memory only; a restore or reset goes back to the fixture's keys.
   */
  issueKey(entry: Omit<KeyRecord, "expiresAt">): void {
    this.apiKeys = new Keyed([...this.apiKeys.all().filter((k) => k.key !== entry.key), { ...entry }], (k) => k.key);
  }

  /** Revokes an API key: from now on it gets 401, like an unknown one. False when there was none. */
  revokeKey(key: string): boolean {
    const had = this.apiKeys.get(key) !== undefined;
    this.apiKeys = new Keyed(this.apiKeys.all().filter((k) => k.key !== key), (k) => k.key);
    return had;
  }

  isMember(teamId: string, userId: string): boolean {
    const team = this.records.get(teamId);
    return team?.kind === "team" && (team.ownerUserId === userId || team.memberUserIds.includes(userId));
  }

  /** Replaces the account's registered SSH keys (not a merge: pods created afterwards get the new set). */
  setSshKeys(account: AccountRecord, keys: string[]): void {
    account.sshKeys = [...keys];
  }

  /** Control plane: balance, quotas, exemption and sandbox limits of one account. */
  update(account: AccountRecord, patch: AccountPatch): void {
    if (patch.balance !== undefined) account.balance = patch.balance;
    if (patch.rateLimits) account.rateLimits = { ...account.rateLimits, ...patch.rateLimits };
    if (patch.exempt !== undefined) account.exempt = patch.exempt;
    if (patch.maxIdleTimeoutSeconds !== undefined) account.maxIdleTimeoutSeconds = patch.maxIdleTimeoutSeconds;
    if (patch.maxLifetimeSeconds !== undefined) account.maxLifetimeSeconds = patch.maxLifetimeSeconds;
    if (patch.sshKeys !== undefined) this.setSshKeys(account, patch.sshKeys);
  }
}
