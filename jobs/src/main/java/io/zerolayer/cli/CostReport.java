package io.zerolayer.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.zerolayer.schemas.KernelCostRecord;
import java.util.List;

/**
 * A self-contained HTML report of kernel cost records: cost by tenant, by kernel, over time (per
 * minute) and the top graphs, drawn as SVG by an inline script from the records embedded as JSON
 * (no network, no library). When the charts are drawn the body carries {@code
 * data-charts-drawn="4"}.
 */
final class CostReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CostReport() {}

    /** The report's HTML for {@code records}, titled with {@code source}. */
    static String html(List<KernelCostRecord> records, String source) {
        ArrayNode rows = JSON.createArrayNode();
        for (KernelCostRecord r : records) {
            rows.addArray()
                    .add(r.getTenantId())
                    .add(r.getKernel())
                    .add(r.getGraphId())
                    .add(r.getStartedAt().toEpochMilli())
                    .add(orZero(r.getComputeNanoUsd()))
                    .add(orZero(r.getMemoryNanoUsd()))
                    .add(orZero(r.getPcieNanoUsd()))
                    .add(r.getDeviceTimeNanoUsd());
        }
        String data = rows.toString().replace("</", "<\\/"); // no early </script>
        return TEMPLATE.replace("{{SOURCE}}", escape(source))
                .replace("{{COUNT}}", String.valueOf(records.size()))
                .replace("{{DATA}}", data);
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static final String TEMPLATE =
            """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <title>ZeroLayer costs</title>
            <style>
              body { font: 14px system-ui, sans-serif; margin: 24px; color: #222; }
              h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
              .total { font-size: 18px; } svg text { font-size: 12px; }
              .bar { fill: #3b6ea5; } .bar.time { fill: #c0612b; }
            </style></head>
            <body>
            <h1>ZeroLayer costs</h1>
            <p>{{COUNT}} kernel cost records from {{SOURCE}}.
               <span class="total">Total: <b id="total"></b></span></p>
            <h2>Cost by tenant</h2><svg id="by-tenant" width="900"></svg>
            <h2>Cost by kernel</h2><svg id="by-kernel" width="900"></svg>
            <h2>Cost over time (per minute)</h2><svg id="over-time" width="900" height="256"></svg>
            <h2>Top graphs</h2><svg id="top-graphs" width="900"></svg>
            <script>
            const rows = {{DATA}};
            // below a micro-dollar, six decimals would print $0.000000: say the nano-dollars
            const usd = n => n >= 1e9 ? '$' + (n / 1e9).toFixed(2)
                : n >= 1e3 ? '$' + (n / 1e9).toFixed(6) : Math.round(n) + ' nano-$';
            const cost = r => r[4] + r[5] + r[6] + r[7];
            function sum(keyOf) {
              const m = new Map();
              for (const r of rows) m.set(keyOf(r), (m.get(keyOf(r)) || 0) + cost(r));
              return [...m.entries()].sort((a, b) => b[1] - a[1]);
            }
            const NS = 'http://www.w3.org/2000/svg';
            function el(parent, name, attrs, text) {
              const e = document.createElementNS(NS, name);
              for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
              if (text !== undefined) e.textContent = text;
              parent.appendChild(e);
              return e;
            }
            function bars(id, entries) {
              const svg = document.getElementById(id);
              const max = Math.max(1, ...entries.map(e => e[1]));
              svg.setAttribute('height', 24 * entries.length + 10);
              entries.forEach(([label, value], i) => {
                const y = 5 + 24 * i;
                el(svg, 'text', {x: 0, y: y + 14}, label.length > 24 ? label.slice(0, 12) + '…' : label);
                el(svg, 'rect', {class: 'bar', x: 200, y: y, height: 18,
                                 width: Math.max(1, 560 * value / max)});
                el(svg, 'text', {x: 770, y: y + 14}, usd(value));
              });
            }
            function timeline(id, entries) {
              const svg = document.getElementById(id);
              const max = Math.max(1, ...entries.map(e => e[1]));
              const left = 110, w = 760 / Math.max(1, entries.length);
              // y axis: cost per minute, ticks at 0, half and the largest minute
              el(svg, 'line', {class: 'axis', x1: left - 4, y1: 10, x2: left - 4, y2: 210,
                               stroke: '#444'});
              for (const f of [0, 0.5, 1]) {
                const y = 210 - 200 * f;
                el(svg, 'line', {class: 'axis', x1: left - 9, y1: y, x2: left - 4, y2: y,
                                 stroke: '#444'});
                el(svg, 'text', {class: 'y-tick', x: left - 12, y: y + 4, 'text-anchor': 'end'},
                   usd(max * f));
              }
              entries.forEach(([minute, value], i) => {
                const h = 200 * value / max;
                el(svg, 'rect', {class: 'bar time', x: left + i * w, y: 210 - h,
                                 width: Math.max(1, w - 2), height: Math.max(1, h)});
              });
              if (entries.length) {
                el(svg, 'text', {x: left, y: 230}, new Date(entries[0][0]).toISOString().slice(0, 16));
                el(svg, 'text', {x: 740, y: 230},
                   new Date(entries[entries.length - 1][0]).toISOString().slice(0, 16));
              }
              el(svg, 'text', {class: 'x-title', x: 440, y: 248, 'text-anchor': 'middle'},
                 'minute (UTC)');
            }
            document.getElementById('total').textContent = usd(rows.reduce((a, r) => a + cost(r), 0));
            bars('by-tenant', sum(r => r[0]));
            bars('by-kernel', sum(r => r[1]));
            timeline('over-time', sum(r => Math.floor(r[3] / 60000) * 60000).sort((a, b) => a[0] - b[0]));
            bars('top-graphs', sum(r => r[2]).slice(0, 10));
            document.body.setAttribute('data-charts-drawn', '4');
            </script>
            </body></html>
            """;
}
