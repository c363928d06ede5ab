import { useId } from "preact/hooks";
import { conversationOf } from "../../cc";
import type { Call } from "../../softphone";
import type { AgentUi } from "../model/agent-ui";
import { useModel } from "../model/model";
import { KeptText } from "../shared/kept-text";

/**
 * Notes typed during a call, on its card: kept with the conversation on every keystroke (through
 * a reload and the take-back that follows) and carried into its after-call work.
 */
export function CallNotes({ call, agent }: { call: Call; agent: AgentUi }) {
  const { t } = useModel();
  const m = t.value.agent.wrapUp;
  const id = useId();
  const notes = agent.callNotes.value[conversationOf(call)] ?? "";
  return (
    <div class="call-notes">
      <label for={`${id}-n`}>{m.callNotes}</label>
      <KeptText
        id={`${id}-n`}
        rows={2}
        value={notes}
        aria-describedby={`${id}-h`}
        data-testid="call-notes"
        onText={(text) => agent.act(agent.actions.setCallNotes(call.id, text))}
      />
      <p id={`${id}-h`} class="field-note">
        {m.callNotesHint}
      </p>
    </div>
  );
}
