import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics, InMemoryMetrics, METRICS_NAMESPACE, MetricName } from '@autosave/runtime/metrics';

afterEach(() => vi.restoreAllMocks());

/** Everything written to stdout while `fn` runs (Powertools writes EMF there). */
function captureStdout(fn: () => void): string {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => ((out += String(chunk)), true));
  fn();
  vi.restoreAllMocks();
  return out;
}

describe('EmfMetrics', () => {
  it('writes one embedded-metric-format line in the Autosave namespace with units', () => {
    const metrics = new EmfMetrics({ serviceName: 'autosave-tool-step' });
    const out = captureStdout(() => {
      metrics.add(MetricName.DuplicateSuppressed);
      metrics.add(MetricName.ModelInputTokens, 412);
      metrics.add(MetricName.ApprovalWaitSeconds, 90);
      metrics.flush();
    });
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0]);
    const directive = emf._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    expect(directive.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'DuplicateSuppressed', Unit: 'Count' },
        { Name: 'ModelInputTokens', Unit: 'Count' },
        { Name: 'ApprovalWaitSeconds', Unit: 'Seconds' },
      ]),
    );
    expect(emf).toMatchObject({
      DuplicateSuppressed: 1,
      ModelInputTokens: 412,
      ApprovalWaitSeconds: 90,
      service: 'autosave-tool-step',
    });
  });

  it('writes nothing when nothing was reported', () => {
    const metrics = new EmfMetrics();
    expect(captureStdout(() => metrics.flush())).toBe('');
  });
});

describe('InMemoryMetrics', () => {
  it('adds up values per metric', () => {
    const metrics = new InMemoryMetrics();
    metrics.add(MetricName.Redrives);
    metrics.add(MetricName.Redrives, 2);
    expect(metrics.get(MetricName.Redrives)).toBe(3);
    expect(metrics.get(MetricName.Reconciled)).toBe(0);
  });
});
