import type { FastifyInstance, FastifyRequest } from 'fastify';
import type * as Api from '@opentelemetry/api';
import { commonJs } from '../lib/cjs.ts';
import { UNMATCHED_ROUTE } from './metrics.ts';
import { parseTraceparent } from './trace-context.ts';

/**
 * OpenTelemetry traces, exported over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`: one server span per request, a
 * child of the caller's `traceparent` when it sent one. Called only when OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK is
 * loaded here, not at every start. Spans go out in batches; closing the app sends what is left.
 */
export async function registerTracing(app: FastifyInstance, endpoint: string): Promise<void> {
  const { trace, ROOT_CONTEXT, SpanKind, SpanStatusCode } = commonJs(await import('@opentelemetry/api'));
  const { NodeTracerProvider, BatchSpanProcessor } = commonJs(await import('@opentelemetry/sdk-trace-node'));
  const { OTLPTraceExporter } = commonJs(await import('@opentelemetry/exporter-trace-otlp-http'));
  const { resourceFromAttributes } = commonJs(await import('@opentelemetry/resources'));

  const exporter = new OTLPTraceExporter({ url: `${endpoint}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'showsuite' }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('showsuite');
  const spans = new WeakMap<FastifyRequest, Api.Span>();

  app.addHook('onRequest', (request, _reply, done) => {
    const parent = parseTraceparent(request.headers.traceparent);
    const context = parent
      ? trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags, isRemote: true })
      : ROOT_CONTEXT;
    const path = request.url.split('?')[0] ?? '/';
    const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': path } }, context);
    spans.set(request, span);
    request.traceId = span.spanContext().traceId;
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      const route = request.routeOptions.url;
      span.updateName(`${request.method} ${route ?? UNMATCHED_ROUTE}`);
      if (route !== undefined) span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      spans.delete(request);
    }
    done();
  });
  app.addHook('onClose', async () => {
    await provider.shutdown().catch((err: unknown) => {
      app.log.warn({ err }, 'trace export: spans left unsent at shutdown');
    });
  });
}
