import type { ComponentChildren } from "preact";

/** What the control inside a Field carries, so that a screen reader reads its note and its problem. */
export interface FieldControl {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/**
 * A labelled control (input, textarea, select) with the line under it: what is wrong with what was
 * typed, else a hint of what to type. Without a hint the line is there only for a problem. The
 * control gets its id, `aria-invalid` and the line as its description from `children`.
 * `bare` leaves out the `.field` wrapper, for panels that lay out label, control and note
 * themselves.
 */
export function Field({
  id,
  label,
  hint,
  problem,
  bare = false,
  children,
}: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  problem?: string | null | undefined;
  bare?: boolean;
  children: (control: FieldControl) => ComponentChildren;
}) {
  const noteId = `${id}-note`;
  const note = problem || hint;
  const content = (
    <>
      <label for={id}>{label}</label>
      {children({ id, "aria-invalid": problem ? true : undefined, "aria-describedby": note ? noteId : undefined })}
      {note && (
        <p id={noteId} class={`field-note${problem ? " is-problem" : ""}`}>
          {note}
        </p>
      )}
    </>
  );
  return bare ? content : <div class="field">{content}</div>;
}
