import type { SessionUser } from "../../session";

/**
 * Whether the browser shows the wallboard (the platform still checks every action: `isSupervisor`
 * in platform/cc/cc-caller.ts): an administrator (`is_admin`) or a user whose `system_roles` name
 * a supervisor or an administrator, as the spec's session shows them; never the label
 * `currentAuthority` (a name to show, which a platform may word as it likes). A session whose
 * roles are not known (a token handed over by a CRM) is a supervisor only as an administrator.
 * A file of its own: the agent's screen asks it without loading the wallboard.
 */
export function showsWallboard(user: Pick<SessionUser, "isAdmin" | "systemRoles"> | null | undefined): boolean {
  return !!user && (user.isAdmin || user.systemRoles.some((r) => SUPERVISOR_ROLES.has(r.trim().toLowerCase())));
}

const SUPERVISOR_ROLES = new Set(["supervisor", "admin", "administrator"]);
