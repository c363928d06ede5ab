import { randomBytes, scrypt, scryptSync, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_LENGTH = 32;

/**
 * User passwords are stored as scrypt hashes: `scrypt$<salt hex>$<hash hex>`. Hashing takes tens
 * of milliseconds of CPU, so it runs on libuv's thread pool: on the event loop it would stall the
 * media clock and every live call's audio.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return encode(salt, await scryptAsync(password, salt, KEY_LENGTH));
}

/** hashPassword blocking the event loop: only for filling a new database at start-up, before any call. */
export function hashPasswordAtStartup(password: string): string {
  const salt = randomBytes(16);
  return encode(salt, scryptSync(password, salt, KEY_LENGTH));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltHex, hashHex] = stored.split("$");
  if (scheme !== "scrypt" || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, "hex");
  const actual = await scryptAsync(password, Buffer.from(saltHex, "hex"), expected.length);
  return timingSafeEqual(expected, actual);
}

function encode(salt: Buffer, hash: Buffer): string {
  return `scrypt$${salt.toString("hex")}$${hash.toString("hex")}`;
}

/**
 * The spec's user password rule: 8 to 20 characters with upper-case, lower-case, digits and
 * special characters. Returns the first rule that fails, in words, or undefined when it passes.
 */
export function userPasswordProblem(password: string): string | undefined {
  return lengthProblem(password) ?? classProblem(password, true);
}

/** Extension passwords: 8 to 20 characters with upper-case, lower-case and digits. */
export function extensionPasswordProblem(password: string): string | undefined {
  return lengthProblem(password) ?? classProblem(password, false);
}

function lengthProblem(password: string): string | undefined {
  if (password.length < 8) return "must be at least 8 characters long";
  if (password.length > 20) return "must be at most 20 characters long";
  return undefined;
}

function classProblem(password: string, special: boolean): string | undefined {
  if (!/[A-Z]/.test(password)) return "must contain an upper-case letter";
  if (!/[a-z]/.test(password)) return "must contain a lower-case letter";
  if (!/[0-9]/.test(password)) return "must contain a digit";
  if (special && !/[^A-Za-z0-9]/.test(password)) return "must contain a special character (such as @ # ! %)";
  return undefined;
}
