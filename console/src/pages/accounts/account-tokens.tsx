// The tokens of an account (revoked ones too), each with its state, spend and links to its requests and bill. A
// token joins an account in its own form (Tokens page: the Account picker).
import { time, units } from '../../format.ts';
import type { Token } from '../../types.ts';
import { stateOf } from '../tokens/token-table.tsx';
import { Name, plainName } from '../../name.tsx';

export function AccountTokens({ tokens }: { tokens: Token[] }) {
  return (
    <div class="table-wrap">
      <table id="account-tokens">
        <caption>
          {tokens.length === 1 ? '1 token' : `${tokens.length} tokens`} in this account — a token joins one in its form
          on the <a href="#/tokens">Tokens page</a>
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">State</th>
            <th scope="col" class="num">
              Spent
            </th>
            <th scope="col">Created</th>
            <th scope="col">Links</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id}>
              <th scope="row">
                <Name value={t.name} />
              </th>
              <td>
                <code>{t.id}</code>
              </td>
              <td>
                <span class={`pill ${stateOf(t)}`}>{stateOf(t)}</span>
              </td>
              <td class="num">{units(t.spent)}</td>
              <td>{time(t.created_at)}</td>
              <td>
                <span class="actions">
                  <a
                    href={`#/logs?token_id=${encodeURIComponent(t.id)}`}
                    aria-label={`Requests of ${plainName(t.name)}`}
                  >
                    Requests
                  </a>
                  <a href={`#/bills?token_id=${encodeURIComponent(t.id)}`} aria-label={`Bill of ${plainName(t.name)}`}>
                    Bill
                  </a>
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
