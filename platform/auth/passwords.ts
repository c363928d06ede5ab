import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

/** User passwords are stored as scrypt hashes: `scrypt$<salt hex>$<hash hex>`. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt$${salt.toString("hex")}$${hash.toString("hex")}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, saltHex, hashHex] = stored.split("$");
  if (scheme !== "scrypt" || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, "hex");
  const actual = scryptSync(password, Buffer.from(saltHex, "hex"), expected.length);
  return timingSafeEqual(expected, actual);
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
