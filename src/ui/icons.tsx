import type { JSX } from "preact";

// Icons are decorative: the control around each one carries the accessible name.
type IconProps = { class?: string };

function Svg({ children, class: cls }: IconProps & { children: JSX.Element | JSX.Element[] }) {
  return (
    <svg
      class={`icon ${cls ?? ""}`}
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      stroke-width="1.8"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

export function LogoMark({ class: cls }: IconProps) {
  return (
    <svg class={`logo ${cls ?? ""}`} viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="var(--accent)" />
      <path
        d="M10.5 7.5c.8-.8 2-.8 2.8 0l2 2c.8.8.8 2 0 2.8l-1.2 1.2a12 12 0 0 0 4.4 4.4l1.2-1.2c.8-.8 2-.8 2.8 0l2 2c.8.8.8 2 0 2.8l-1.3 1.3c-1.3 1.3-3.3 1.6-4.9.7A24 24 0 0 1 8.2 14.4c-.9-1.6-.6-3.6.7-4.9z"
        fill="var(--on-accent)"
      />
    </svg>
  );
}

export const EyeIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" />
    <circle cx="12" cy="12" r="3" />
  </Svg>
);

export const EyeOffIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M10.6 5.1A10 10 0 0 1 12 5c6.4 0 10 7 10 7a17 17 0 0 1-3 3.9M6.6 6.6C3.8 8.4 2 12 2 12s3.6 7 10 7a9.6 9.6 0 0 0 5.4-1.6" />
    <path d="M9.9 9.9a3 3 0 0 0 4.2 4.2M3 3l18 18" />
  </Svg>
);

export const RefreshIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M20 11a8 8 0 0 0-14.9-3.9M4 4v4h4M4 13a8 8 0 0 0 14.9 3.9M20 20v-4h-4" />
  </Svg>
);

export const GlobeIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="12" cy="12" r="9" />
    <path d="M3 12h18M12 3c2.5 2.7 3.8 5.7 3.8 9s-1.3 6.3-3.8 9c-2.5-2.7-3.8-5.7-3.8-9S9.5 5.7 12 3z" />
  </Svg>
);

export const SignOutIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M15 4h3a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2h-3M10 17l-5-5 5-5M5 12h11" />
  </Svg>
);

export const AlertIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7.5v5.5M12 16.5v.01" />
  </Svg>
);

export const InfoIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 11v5.5M12 7.5v.01" />
  </Svg>
);

export const ChevronIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M9 6l6 6-6 6" />
  </Svg>
);

// Phone controls: simple strokes in the same 24-unit grid.
const path = (d: string) => (p: IconProps) => (
  <Svg {...p}>
    <path d={d} />
  </Svg>
);

const HANDSET = "M5 4h3l2 5-2.5 1.5a11 11 0 0 0 6 6L15 14l5 2v3a2 2 0 0 1-2 2A16 16 0 0 1 3 6a2 2 0 0 1 2-2";
export const PhoneIcon = path(HANDSET);
export const HangUpIcon = path("M3 15.5c5-4.7 13-4.7 18 0l-2.2 2.6-3.6-1.7v-2.8a11 11 0 0 0-6.4 0v2.8l-3.6 1.7z");
export const MicIcon = path("M12 3a3 3 0 0 0-3 3v6a3 3 0 0 0 6 0V6a3 3 0 0 0-3-3zM5 11a7 7 0 0 0 14 0M12 18v3");
export const MicOffIcon = path(
  "M9 9v3a3 3 0 0 0 5 2.2M15 11V6a3 3 0 0 0-5.7-1.3M5 11a7 7 0 0 0 11.4 5.4M19 11a7 7 0 0 1-.6 2.8M12 18v3M3 3l18 18",
);
export const PauseIcon = path("M8 5v14M16 5v14");
export const PlayIcon = path("M7 4.5v15l12-7.5z");
export const KeypadIcon = path(
  "M6 5h.01M12 5h.01M18 5h.01M6 11h.01M12 11h.01M18 11h.01M6 17h.01M12 17h.01M18 17h.01M12 21h.01",
);
export const TransferIcon = path("M4 8h13M13 4l4 4-4 4M20 16H7M11 12l-4 4 4 4");
export const SwapIcon = path("M7 4 3 8l4 4M3 8h14M17 12l4 4-4 4M21 16H7");
export const CloseIcon = path("M6 6l12 12M18 6 6 18");
export const RedialIcon = path("M4 12a8 8 0 1 0 2.3-5.7M4 4v4h4");
export const SettingsIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="12" cy="12" r="3" />
    <path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-2.9 1.2V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-2.9-1.2l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1A1.7 1.7 0 0 0 3 14.1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.2-2.9l-.1-.1A2 2 0 1 1 7 4.3l.1.1a1.7 1.7 0 0 0 2.9-1.2V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 2.9 1.2l.1-.1A2 2 0 1 1 19.7 7l-.1.1a1.7 1.7 0 0 0 1.2 2.9h.2a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z" />
  </Svg>
);
export const HeadsetIcon = path(
  "M4 15v-3a8 8 0 0 1 16 0v3M4 15a2 2 0 0 0 2 2h1v-5H6a2 2 0 0 0-2 2zm16 0a2 2 0 0 1-2 2h-1v-5h1a2 2 0 0 1 2 2zM17 17v1a3 3 0 0 1-3 3h-2",
);
export const BackspaceIcon = path("M9 5h11v14H9l-6-7zM12 9l5 6M17 9l-5 6");
export const IncomingIcon = path("M17 7 7 17M7 9v8h8");
export const OutgoingIcon = path("M7 17 17 7M9 7h8v8");
export const VolumeIcon = path("M4 9v6h4l5 4V5L8 9zM16 9a4 4 0 0 1 0 6M19 6a8 8 0 0 1 0 12");
export const SearchIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="11" cy="11" r="6.5" />
    <path d="M16 16l4.5 4.5" />
  </Svg>
);

export const NotesIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6 3h9l4 4v14H6z" />
    <path d="M14 3v5h5M9 12h7M9 16h5" />
  </Svg>
);

export const QueueIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="7" cy="8" r="2.5" />
    <circle cx="17" cy="8" r="2.5" />
    <path d="M2.5 19c.5-3 2.3-4.5 4.5-4.5s4 1.5 4.5 4.5M12.5 19c.5-3 2.3-4.5 4.5-4.5s4 1.5 4.5 4.5" />
  </Svg>
);

export const ThreeWayIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="12" cy="6" r="2.5" />
    <circle cx="5.5" cy="17" r="2.5" />
    <circle cx="18.5" cy="17" r="2.5" />
    <path d="M10.5 8.2 7 14.8M13.5 8.2 17 14.8M8 17h8" />
  </Svg>
);
