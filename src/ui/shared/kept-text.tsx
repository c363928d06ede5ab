import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/**
 * A text area whose text is kept elsewhere (the agent's store, written to the browser's storage
 * on every keystroke, perhaps by another tab): what is typed shows at once and is handed on with
 * each keystroke, and a change made elsewhere shows only while the agent is not typing here, so
 * that no round trip ever takes a character back.
 */
export function KeptText({
  value,
  onText,
  ...rest
}: { value: string; onText(text: string): void } & Omit<
  JSX.TextareaHTMLAttributes<HTMLTextAreaElement>,
  "value" | "onInput"
>) {
  const [text, setText] = useState(value);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (document.activeElement !== ref.current) setText(value);
  }, [value]);
  return (
    <textarea
      {...rest}
      ref={ref}
      value={text}
      onInput={(e) => {
        const typed = e.currentTarget.value;
        setText(typed);
        onText(typed);
      }}
    />
  );
}
