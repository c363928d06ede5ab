/**
 * Who may watch a wallboard: a supervisor or an administrator, by the role the platform gave.
 * A file of its own: the agent's screen asks it without loading the wallboard.
 */
export function isSupervisorRole(role: string): boolean {
  return /\b(admin|administrator|supervisor|manager|super[\s_-]?admin)\b/i.test(role);
}
