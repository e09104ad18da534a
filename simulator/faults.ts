// Fault injection. Selectable per run (FaultController.add, or POST /__sim/faults) and per request
// (a marker `sim-fault:<kind>[:<arg>]` anywhere in the request body, e.g. in a prompt).

export type FaultKind =
  | 'status' // respond with an upstream error status and the provider's own error body (arg: HTTP status)
  | 'not-entitled' // the account has no access to the model: DashScope 403 Model.AccessDenied, Kling 403 code 1103
  | 'delay' // wait arg ms before answering normally
  | 'reset' // destroy the connection without answering
  | 'lost-reply' // process the request normally (a task IS created) but destroy the connection instead of answering
  | 'late-reply' // process the request at once (a task IS created) but send the answer only after arg ms (default 1000)
  | 'timeout' // never answer (until the client gives up)
  | 'malformed' // 200 with a body that is not valid JSON
  | 'huge-usage' // chat: reports a usage of 1e20 tokens (a provider bug the gateway must not turn into a float charge)
  | 'no-usage' // compatible-mode chat: the answer, or the stream (even when include_usage asked for it), carries no usage
  | 'empty' // 200 in the API's success shape with no result and no usage ({"choices":[]}, empty data …)
  | 'cut' // streams: send some events then destroy the connection
  | 'trickle' // streams: send events slowly (arg ms between events)
  | 'fail-task' // async tasks: the task ends FAILED / failed
  | 'stay-running' // async tasks: never finish
  | 'deduct' // Kling tasks: report arg units as final_unit_deduction, whatever the task made
  | 'vanish' // async tasks: the upstream forgets the task (UNKNOWN / not found)
  | 'suspend' // DashScope async tasks: SUSPENDED for the first half of the run, then it goes on
  | 'partial' // images: fewer results than n
  | 'no-output' // images: success without any image
  | 'content-filter' // the content filter refuses the input, in each API's spelling (Kling: arg 1300 or 1301, default 1301)
  | 'leak'; // a careless upstream: error status (arg, default 400) whose message echoes the credential and URL it received

export interface FaultSpec {
  kind: FaultKind;
  /** Numeric argument: status code, ms … */
  arg?: number;
  /** Only requests whose path contains this substring. */
  path?: string;
  /** How many requests it applies to (default: every request until cleared). */
  times?: number;
}

const MARKER = /sim-fault:([a-z-]+)(?::(\d+))?/;

export class FaultController {
  private faults: Array<FaultSpec & { left: number }> = [];

  add(spec: FaultSpec): void {
    this.faults.push({ ...spec, left: spec.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.faults = [];
  }

  /** The fault for this request, if any (a body marker wins over run-wide faults). */
  take(path: string, raw: Buffer): FaultSpec | null {
    if (raw.length > 0 && raw.length < 4_000_000) {
      const m = MARKER.exec(raw.toString('utf8'));
      if (m) return { kind: m[1] as FaultKind, ...(m[2] ? { arg: Number(m[2]) } : {}) };
    }
    for (const f of this.faults) {
      if (f.left <= 0) continue;
      if (f.path && !path.includes(f.path)) continue;
      f.left -= 1;
      return f;
    }
    return null;
  }
}

/** Marker lookup on arbitrary text (task prompts are checked again when the task runs). */
export function markerIn(text: string): FaultSpec | null {
  const m = MARKER.exec(text);
  return m ? { kind: m[1] as FaultKind, ...(m[2] ? { arg: Number(m[2]) } : {}) } : null;
}

/** The message of a `leak` fault: what a careless upstream might echo back (credential and full URL). */
export function leakMessage(authorization: string | undefined, url: string): string {
  return `Request rejected. Credential received: ${authorization ?? '(none)'}; endpoint: ${url}`;
}
