/**
 * Users, accounts (personal and team), API keys, console sessions and the account's SSH keys.
 *
 * Balances, quotas and limits live on the account the request acts for; rate-limit counters are
 * kept per user (see rate-limit.ts). Registered SSH keys feed `startSsh` (PUBLIC_KEY injection).
 */
import type { AccountPatch } from "../control/schemas";
import type { Fixture, RateLimits } from "../fixture";
import type { ResourceModule } from "../module";
import { parseMillis } from "../time";

export interface AccountRecord {
  id: string;
  kind: "user" | "team";
  name: string;
  ownerUserId: string;
  memberUserIds: string[];
  balance: number;
  rateLimits: RateLimits;
  exempt: boolean;
  maxIdleTimeoutSeconds: number;
  maxLifetimeSeconds: number;
  sshKeys: string[];
}

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
  readonly name = "accounts";
  private accounts = new Map<string, AccountRecord>();
  private users = new Map<string, UserRecord>();
  private keys = new Map<string, KeyRecord>();
  private sessions = new Map<string, SessionRecord>();

  reset(fixture: Fixture): void {
    this.loadIdentities(fixture);
    this.accounts = new Map(fixture.accounts.map((a) => [a.id, structuredClone(a) as AccountRecord]));
  }

  snapshot(): AccountRecord[] {
    return [...this.accounts.values()];
  }

  restore(slice: unknown, fixture: Fixture): void {
    this.loadIdentities(fixture);
    this.accounts = new Map((slice as AccountRecord[]).map((a) => [a.id, a]));
  }

  private loadIdentities(fixture: Fixture): void {
    this.users = new Map(fixture.users.map((u) => [u.id, { ...u }]));
    this.keys = new Map(
      fixture.apiKeys.map((k) => [k.key, { ...k, expiresAt: k.expiresAt ? parseMillis(k.expiresAt) : undefined }]),
    );
    this.sessions = new Map(
      fixture.sessions.map((s) => [s.token, { ...s, expiresAt: s.expiresAt ? parseMillis(s.expiresAt) : undefined }]),
    );
  }

  apiKey(token: string): KeyRecord | undefined {
    return this.keys.get(token);
  }

  session(token: string): SessionRecord | undefined {
    return this.sessions.get(token);
  }

  user(id: string): UserRecord | undefined {
    return this.users.get(id);
  }

  get(id: string): AccountRecord | undefined {
    return this.accounts.get(id);
  }

  all(): AccountRecord[] {
    return [...this.accounts.values()];
  }

  isMember(teamId: string, userId: string): boolean {
    const team = this.accounts.get(teamId);
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
