import { useState } from "preact/hooks";
import { useModel } from "../model/model";
import { useSupervisor } from "./use-supervisor";

const dateInput = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/** Today's (or a chosen day's) queue and agent figures as a CSV file. */
export function ExportDay() {
  const { t } = useModel();
  const s = useSupervisor();
  const m = t.value.supervisor;
  const today = dateInput(new Date(s.now.value));
  const [day, setDay] = useState(today);
  const [state, setState] = useState<{ busy: boolean; error: string }>({ busy: false, error: "" });
  const run = async () => {
    const [y, mo, d] = (day || today).split("-").map(Number) as [number, number, number];
    setState({ busy: true, error: "" });
    try {
      const csv = await s.wallboard.exportDay(new Date(y, mo - 1, d), (q) => s.thresholds(q).serviceLevelSeconds);
      const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `agentbar-${day || today}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState({ busy: false, error: "" });
    } catch (e) {
      setState({ busy: false, error: e instanceof Error ? e.message : String(e) });
    }
  };
  return (
    <span class="export-day">
      <label class="small">
        {m.exportDay} <input type="date" value={day} max={today} onInput={(e) => setDay(e.currentTarget.value)} />
      </label>
      <button
        type="button"
        class="small secondary"
        disabled={state.busy}
        onClick={() => void run()}
        data-testid="export-csv"
      >
        {m.exportCsv}
      </button>
      {state.error && <span class="error-text small">{m.exportFailed(state.error)}</span>}
    </span>
  );
}
