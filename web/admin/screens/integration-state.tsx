import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { components } from '../../api-schema.d.ts';
import { ErrorNotice, useLoad, when } from '../ui.tsx';

export type IntegrationName = components['schemas']['IntegrationState']['name'];
type State = components['schemas']['IntegrationState'];

/** The project's integrations as last seen (GET /projects/{id}/integrations), by name. */
export function useIntegrationStates(projectId: string) {
  const load = useLoad(() => api.get(`/projects/${projectId}/integrations`), [projectId]);
  const byName = new Map((load.data ?? []).map((s) => [s.name, s]));
  return { byName, error: load.error, reload: load.reload };
}

/** One integration's state in words (connected or not, the last success, the last error) and its "Test connection". */
export function IntegrationLive({ projectId, state, onTested }: { projectId: string; state: State | undefined; onTested: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  if (!state) return null;
  const test = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/projects/${projectId}/integrations/${state.name}/test`);
    } catch (err) {
      setError(err);
    } finally {
      await onTested();
      setBusy(false);
    }
  };
  const words = !state.complete ? 'not set up' : state.connected ? 'connected' : 'not connected';
  return (
    <div class="integration-live" aria-live="polite">
      <p class="small">
        <span class={`badge integration-${state.connected && state.complete ? 'connected' : 'stored'}`}>{words}</span>{' '}
        {state.crm && state.complete && <span class="muted">Every lead is sent here, and updated when its status changes. </span>}
        <span class="muted">Last success: {state.lastSuccessAt ? when(state.lastSuccessAt) : 'never'}.</span>
      </p>
      {state.lastError && (
        <p class="small">
          Last error ({when(state.lastErrorAt)}): {state.lastError}
        </p>
      )}
      {state.testable ? (
        <button type="button" class="secondary" disabled={busy || !state.complete} onClick={() => void test()}>
          {busy ? 'Testing…' : 'Test connection'}
        </button>
      ) : (
        <p class="muted small">A connection test for this vendor is not available yet.</p>
      )}
      <ErrorNotice error={error} />
    </div>
  );
}
