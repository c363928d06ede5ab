import type { Clock } from "../clock";
import { parseTimestamp, timestamp } from "../store/db";
import type { UserRow, UserStore } from "../store/users";
import { AuthError } from "./auth-error";
import type { CaptchaService } from "./captcha";

export const CAPTCHA_AFTER_FAILURES = 2;
export const LOCK_AFTER_FAILURES = 5;
/** Logins no user has whose failures are remembered; beyond it the oldest are forgotten. */
const UNKNOWN_LOGINS_KEPT = 10_000;

export interface AttemptRules {
  /** Whether a captcha is required after 2 failed logins. */
  captcha: boolean;
  /** How long a login stays locked after 5 failed logins, seconds. */
  lockSeconds: number;
}

/** What the rules know of a login: failures since its last success, and the end of its lock. */
interface AttemptRecord {
  attempts: number;
  locked: boolean;
  /** Platform timestamp; '' with `locked` means locked until an administrator unlocks it. */
  lockedUntil: string;
}

/**
 * The spec's rules for password sign-ins: a captcha from the second failure on (when the captcha
 * is on), a lock at the fifth. A login no user has is counted, asked for captchas and locked the
 * same way (in memory), so that its answers tell nothing a real login's would not.
 */
export class LoginAttempts {
  private readonly unknown = new Map<string, AttemptRecord>();

  constructor(
    private readonly users: UserStore,
    private readonly rules: AttemptRules,
    private readonly captchas: CaptchaService,
    private readonly now: Clock,
  ) {}

  /** Refuses a sign-in that the lock or the captcha rule stops before its password is checked. */
  admit(login: string, user: UserRow | undefined, captcha: string | undefined): void {
    const record = this.recordOf(login, user);
    if (record.locked) {
      const until = parseTimestamp(record.lockedUntil);
      if (!until || until.getTime() > this.now()) {
        throw new AuthError("locked", `User is locked until ${record.lockedUntil}`, {
          lockedUntil: record.lockedUntil,
        });
      }
      this.save(login, user, { attempts: 0, locked: false, lockedUntil: "" });
      record.attempts = 0;
    }
    if (this.rules.captcha && record.attempts >= CAPTCHA_AFTER_FAILURES) {
      if (!captcha) throw new AuthError("captcha-required", "Captcha required", { captchaRequired: true });
      if (!this.captchas.check(login, captcha))
        throw new AuthError("wrong-captcha", "Wrong captcha", { captchaRequired: true });
    }
  }

  /** Counts a wrong password (or a login no user has) and throws the refusal to give. */
  failed(login: string, user: UserRow | undefined): never {
    const attempts = this.recordOf(login, user).attempts + 1;
    if (attempts >= LOCK_AFTER_FAILURES) {
      // Rounded up to the whole second the timestamp shows, so the lock lasts at least lockSeconds.
      const until = timestamp(new Date(Math.ceil((this.now() + this.rules.lockSeconds * 1000) / 1000) * 1000));
      this.save(login, user, { attempts, locked: true, lockedUntil: until });
      throw new AuthError("locked", `User is locked until ${until}`, { lockedUntil: until });
    }
    this.save(login, user, { attempts, locked: false, lockedUntil: "" });
    throw new AuthError("wrong-credentials", "Wrong username or password", {
      attemptsLeft: LOCK_AFTER_FAILURES - attempts,
      ...(this.rules.captcha && attempts >= CAPTCHA_AFTER_FAILURES ? { captchaRequired: true } : {}),
    });
  }

  /** The right password: the count starts again. */
  succeeded(user: UserRow): void {
    const now = timestamp(new Date(this.now()));
    this.users.updateUser(user.id, {
      login_attempts: 0,
      last_login_at: now,
      last_login_attempt_at: now,
      ...(user.first_login ? {} : { first_login: now }),
    });
  }

  private recordOf(login: string, user: UserRow | undefined): AttemptRecord {
    if (!user) return { ...(this.unknown.get(login) ?? { attempts: 0, locked: false, lockedUntil: "" }) };
    return {
      attempts: user.login_attempts,
      locked: Boolean(user.is_locked),
      lockedUntil: user.is_locked ? user.locked_until : "",
    };
  }

  private save(login: string, user: UserRow | undefined, record: AttemptRecord): void {
    if (user) {
      this.users.updateUser(user.id, {
        login_attempts: record.attempts,
        is_locked: record.locked ? 1 : 0,
        locked_until: record.lockedUntil,
        last_login_attempt_at: timestamp(new Date(this.now())),
      });
      return;
    }
    // Newest last, so that the oldest go first when there are too many.
    this.unknown.delete(login);
    this.unknown.set(login, record);
    if (this.unknown.size > UNKNOWN_LOGINS_KEPT) this.unknown.delete(this.unknown.keys().next().value!);
  }
}
