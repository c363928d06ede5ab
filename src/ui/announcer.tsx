import { useModel } from "./model/model";

/**
 * The page's one live region. A repeated message is told again: every other announcement gets
 * an invisible trailing space, so screen readers see a change.
 */
export function Announcer() {
  const { announcement } = useModel();
  const { text, serial } = announcement.value;
  return (
    <div class="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {text + (serial % 2 ? "\u00a0" : "")}
    </div>
  );
}
