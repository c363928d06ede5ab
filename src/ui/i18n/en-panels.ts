/**
 * The English of what shows only later, in panels the page loads when first needed: the phone's
 * and the toolbar's settings, the devices and the pre-call check, the call center's transfer
 * panel, desktop notifications, the wallboard and the history. Loaded once the page is ready for
 * calls (`loadEnglishPanels`); each of those panels waits for it with its own code.
 */
export const enPanels = {
  phone: {
    transferTo: "Transfer to",
    transferNow: "Transfer now",
    dtmfSent: "Tones sent",
    testRinger: "Test ringer",
    outputFixed: "This browser plays all sound on the system output.",
    sipUrl: "SIP WebSocket address",
    sipUrlHint: (url: string) => `Empty: ${url}`,
    sipUrlProblem: "Enter an address starting with wss:// or ws://",
    iceHint:
      "One per line. TURN: address, user name and password, separated by spaces. Empty: none (fine on a local network).",
    iceProblem: {
      scheme: (line: number) => `Line ${line}: start with stun:, stuns:, turn: or turns:.`,
      host: (line: number) => `Line ${line}: the server address is not valid.`,
      port: (line: number) => `Line ${line}: the port must be 1 to 65535.`,
      "turn-credentials": (line: number) => `Line ${line}: a TURN server needs a user name and a password.`,
      "stun-credentials": (line: number) => `Line ${line}: a STUN server takes no user name or password.`,
    },
    autoAnswerOption: {
      platform: "Calls the platform marks",
      always: "Any call marked for it",
      never: "Never",
    },
    dtmfOption: { rfc4733: "In the audio (RFC 4733)", info: "As SIP INFO" },
    referOption: { ask: "Ask me", reject: "Refuse" },
    notificationsBlocked: "The browser blocks notifications for this site.",
    notification: {
      title: "Incoming call",
      body: (who: string) => `${who} is calling`,
    },
  },
  agent: {
    transferNow: "Transfer",
    transferTitle: "Transfer or consult",
    targetKind: "To",
    targetKinds: { agent: "An agent", queue: "A queue", number: "A number" },
    queueTarget: "Queue",
    numberTarget: "Number",
    chooseAgent: "Choose an agent",
    loadingColleagues: "Looking up the agents of your queues…",
    noColleagues: "No other agents in your queues.",
    colleague: (name: string, number: string, status: string) => `${name ? `${name} (${number})` : number} · ${status}`,
    eventsUrl: "Event channel address (JSON-RPC)",
    listHint: "One per line. Empty: the built-in list.",
    queueAutoAnswer: "Answer queue calls by themselves",
    queueAutoAnswerOff: "No, let them ring",
    queueAutoAnswerAfter: (sec: number) => (sec === 0 ? "At once" : `After ${sec} s`),
    wrapUpMax: "After-call work ends by itself",
    wrapUpMaxOff: "Never: only Done ends it",
    wrapUpMaxAfter: (sec: number) => `After ${sec / 60} min (never while you type)`,
    outboundOption: { "call-center": "Through the call center (as an agent)", phone: "Straight from the phone" },
    layoutOption: { full: "Full page", side: "Side panel", bar: "One-line bar" },
    layoutHint: "The address (?layout=) takes precedence.",
    shortcutHint: "Click a field and press the keys (with Alt, Ctrl or Meta). Backspace clears it.",
    shortcutNames: {
      answer: "Answer",
      hangup: "Hang up",
      hold: "Hold / resume",
      mute: "Mute / unmute",
      ready: "Ready",
      break: "Break",
    },
    shortcutTaken: (name: string) => `Already used for ${name}.`,
  },
  supervisor: {
    region: "Wallboard",
    queues: "Queues",
    agents: "Agents",
    live: "Live",
    polling: "Updated every few seconds",
    loading: "Loading the agents…",
    waiting: "Waiting",
    answered: "Answered",
    abandoned: "Abandoned",
    search: "Search name or extension",
    sort: { name: "Name", extension: "Extension", status: "Status", time: "Time in status" } as Record<string, string>,
    empty: "No agent matches.",
    extension: (n: string) => `Ext. ${n}`,
    wrapUp: "After-call work",
    monitor: "Monitor",
    whisper: "Whisper",
    whisperCustomer: "Speak to customer",
    barge: "Barge in",
    intercept: "Intercept",
    stop: "Stop",
    setStatus: "Set status",
    confirm: "Confirm",
    cancel: "Cancel",
    mode: {
      monitor: "Listening: neither hears you",
      whisper: "Whispering: only the agent hears you",
      "whisper-customer": "Speaking to the customer: only the customer hears you",
      barge: "In the call: both hear you",
    } as Record<string, string>,
    supervising: (agent: string, customer: string) => `${agent} with ${customer}`,
    agentTold: (agent: string) => `${agent} is told that you are on the call.`,
    pending: {
      monitor: "Calling your phone to listen…",
      whisper: "Calling your phone to whisper…",
      "whisper-customer": "Calling your phone to speak to the customer…",
      barge: "Joining the call…",
      intercept: "Taking the call…",
      stop: "Leaving the call…",
      "agent-status": "Changing the status…",
    } as Record<string, string>,
    failed: {
      monitor: "Could not monitor",
      whisper: "Could not whisper",
      "whisper-customer": "Could not speak to the customer",
      barge: "Could not barge in",
      intercept: "Could not intercept",
      stop: "Could not leave the call",
      "agent-status": "Could not change the status",
    } as Record<string, string>,
    bar: (ready: number, talking: number, onBreak: number) =>
      `${ready} ready · ${talking} in a call · ${onBreak} on break`,
    log: "Action log",
    stale: (since: string) => `Not updated since ${since}`,
    readFailed: (message: string) => `The agents could not be read: ${message}`,
    longestWait: "Longest wait",
    longestWaitUnknown: "not known yet",
    serviceLevel: (seconds: number) => `Answered within ${seconds} s`,
    noCallsYet: "no calls yet",
    countedSince: (since: string) => `Counted since ${since}`,
    byStatus: "Agents",
    inCall: "in a call",
    filterQueue: "Queue",
    filterStatus: "Status",
    allQueues: "All queues",
    allStatuses: "All statuses",
    inACall: "In a call",
    sortBy: "Sort by",
    count: (shown: number, total: number) => (shown === total ? `${total} agents` : `${shown} of ${total} agents`),
    columns: {
      agent: "Agent",
      status: "Status",
      call: "Current call",
      time: "In status",
      noAnswer: "Not answered",
      actions: "Actions",
    },
    callState: {
      RINGING: "Ringing",
      DIALING: "Dialling",
      TALKING: "Talking",
      HOLD: "On hold",
      CONSULTING: "Consulting",
      MONITORING: "Monitoring",
    } as Record<string, string>,
    atLeast: (time: string) => `≥ ${time}`,
    noAnswerCount: (n: number) => (n === 1 ? "1 call not answered" : `${n} calls not answered`),
    actionsFor: (name: string) => `Actions for ${name}`,
    confirmStatus: (name: string, status: string) => `Set ${name} to “${status}”?`,
    agentNotTold: (agent: string) => `${agent} is not told that you are on the call.`,
    agentToldUnknown: "The platform does not say whether the agent is told.",
    logEmpty: "No action yet.",
    logLine: (when: string, by: string, what: string, whom: string) => `${when} · ${by} · ${what} · ${whom}`,
    logFailed: (message: string) => `failed: ${message}`,
  },
  history: {
    title: "Call history",
    search: "Search",
    clear: "Clear",
    refresh: "Refresh",
    loading: "Loading calls…",
    empty: "No calls found.",
    failed: (message: string) => `The call history could not be loaded: ${message}`,
    page: (page: number, count: number) => `Page ${page} of ${count}`,
    previous: "Previous page",
    next: "Next page",
    incoming: "Incoming",
    play: "Play recording",
    stop: "Stop playing",
    callBack: (number: string) => `Call back ${number}`,
    disposition: "Outcome",
    notes: "Notes",
    callerNumber: "Caller number",
    destinationNumber: "Called number",
    period: "Period",
    periodOption: { all: "Any time", "1": "Today", "7": "Last 7 days", "30": "Last 30 days", dates: "Dates…" },
    startDate: "From",
    endDate: "To",
    total: (n: number) => (n === 1 ? "1 record" : `${n} records`),
    outgoing: "Outgoing",
    columns: { when: "When", who: "Who", duration: "Talk time", outcome: "Outcome", actions: "Actions" },
    recordingFailed: "The recording could not be loaded.",
    notAnswered: "Not answered",
  },
  precall: {
    micLevel: "Microphone level",
    micStart: "Test microphone",
    micStop: "Stop test",
    micHint: "Speak normally: the bar should move well past the middle.",
    micDb: (db: number) => `${db} dB`,
    testSpeaker: "Test speaker",
    echo: "Echo test call",
    echoHint: (number: string) =>
      `Calls the echo service (${number}): keep talking while it runs; it plays back what you say and measures the delay.`,
    echoBusy: "End your calls to run the echo test.",
    echoStage: { calling: "Calling the echo service…", measuring: "Measuring: keep talking…" },
    echoResult: (r: {
      ms?: number;
      delay: "good" | "fair" | "poor" | "none";
      db: number;
      level: "silent" | "quiet" | "good" | "loud";
    }) =>
      [
        r.ms === undefined
          ? r.level === "silent"
            ? "No echo came back: the audio does not get through, out or back."
            : "The round trip could not be measured: the test beeps did not come back clearly."
          : `Round trip ${r.ms} ms: ${{ good: "good", fair: "acceptable, slight delay", poor: "long, you may talk over each other", none: "" }[r.delay]}.`,
        `Your voice came back at ${r.db} dB: ${
          {
            good: "a good level",
            quiet: "quiet; move the microphone closer or raise its level",
            silent: "silent; check that the microphone is not muted or switched off",
            loud: "too loud; lower the microphone level",
          }[r.level]
        }.`,
      ].join(" "),
    echoFailed: (reason: string) => `The echo test did not run: ${reason}`,
    echoNoAnswer: "the echo service did not answer.",
    download: "Download diagnostics",
    downloadHint:
      "A file for your IT team: the phone's recent messages, registration history, the last calls' figures, devices and settings. No password or token is in it.",
    downloaded: (name: string) => `Saved ${name}.`,
    downloadFailed: "The diagnostics file could not be made.",
  },
  quality: {
    mark: { good: "Good", fair: "Fair", poor: "Poor" },
    /** The mark as a screen reader says it, with the figures. */
    label: (mark: string, figures: string) => `Call quality: ${mark}. ${figures}`,
    figures: (f: { rtt?: number; jitter?: number; loss?: string; mos?: string }) =>
      [
        f.rtt !== undefined ? `Round trip ${f.rtt} ms` : "",
        f.jitter !== undefined ? `jitter ${f.jitter} ms` : "",
        f.loss !== undefined ? `packet loss ${f.loss} %` : "",
        f.mos !== undefined ? `estimated MOS ${f.mos} of 5` : "",
      ]
        .filter(Boolean)
        .join(", ") + ".",
    warning: {
      loss: (loss: string) =>
        `Packets are being lost (${loss} %): the other side may hear you break up. Pause downloads and video calls, move closer to the Wi-Fi access point or use a network cable.`,
      jitter: (ms: number) =>
        `The network is unsteady (jitter ${ms} ms): voices may sound robotic. Stop other streams on this network; a cable helps.`,
      rtt: (ms: number) =>
        `Long delay (${ms} ms round trip): you may talk over each other. A VPN or a distant network route often causes this.`,
      mos: (mos: string) => `Call quality is low (estimated MOS ${mos}). If it does not improve, call back.`,
    },
    oneWay: {
      restarting: "No sound is reaching you from the other side. Reconnecting the call's audio…",
      "no-packets": (seconds: number) =>
        `You cannot hear the other side: no audio has reached you for ${seconds} s, and reconnecting it did not help. Ask them to call back, or hang up and call again. If it keeps happening, a firewall or VPN may be blocking call audio: download the diagnostics for your IT team.`,
      "no-sound": (seconds: number) =>
        `You cannot hear the other side: their audio has arrived as silence for ${seconds} s, and reconnecting it did not help. Check your speaker or headset, then call back if it persists.`,
    },
    announce: (who: string, problem: string) => `Call with ${who}: ${problem}`,
    /** The problem in a word or two, beside the mark in the bar (its tooltip says the rest). */
    short: { loss: "Packet loss", jitter: "Unsteady", rtt: "Delay", mos: "Low quality", oneWay: "No audio" },
  },
};
