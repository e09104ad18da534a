// The holder a credit landed on: an account links to its page; a token is named by its id.
export function Holder({ kind, id }: { kind: 'token' | 'account' | null; id: string | null }) {
  if (!kind || !id) return <>—</>;
  return kind === 'account' ? (
    <a href={`#/accounts/${encodeURIComponent(id)}`}>
      <code>{id}</code>
    </a>
  ) : (
    <>
      token <code>{id}</code>
    </>
  );
}
