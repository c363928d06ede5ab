import type { ComponentChildren, JSX } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";

/**
 * A button that opens a panel under it (the bar has no room for panels in line). Escape or a
 * click elsewhere closes it, and Escape gives the focus back to the button.
 */
export function Popover({
  label,
  icon,
  children,
  align = "end",
  class: className,
}: {
  label: string;
  icon: JSX.Element;
  children: ComponentChildren;
  align?: "start" | "end";
  class?: string;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const outside = (e: Event) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);
  return (
    <div
      class={className ? `popover ${className}` : "popover"}
      ref={root}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button
        type="button"
        ref={button}
        class="icon-button"
        aria-label={label}
        title={label}
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen(!open)}
      >
        {icon}
      </button>
      {open && (
        <div id={id} class={`popover-panel align-${align}`} role="group" aria-label={label}>
          {children}
        </div>
      )}
    </div>
  );
}
