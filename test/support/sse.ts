// Server-sent events as the tests read them: whole bodies split into events.
export interface ParsedEvent {
  event: string | null;
  data: string;
}

/** Split an SSE body into events (tests read whole bodies). */
export function sseEvents(text: string): ParsedEvent[] {
  return text
    .split(/\n\n/)
    .filter((b) => b.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: data.join('\n') };
    });
}
