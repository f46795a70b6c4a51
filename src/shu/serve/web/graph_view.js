// Drawing a graph of a persona's knowledge (GET /v1/personas/{p}/graph) with Cytoscape.js, which
// ships inside the package (vendor/, MIT). Labels are data, drawn on a canvas: never markup.

import cytoscape from "./vendor/cytoscape.esm.min.mjs";

const KIND_STYLE = {
  document: { shape: "round-rectangle", colour: "--accent", fallback: "#1f6f6b" },
  person: { shape: "ellipse", colour: "--graph-person", fallback: "#b45309" },
  project: { shape: "diamond", colour: "--graph-project", fallback: "#6d28d9" },
  entity: { shape: "hexagon", colour: "--graph-entity", fallback: "#52606d" },
};
export const KIND_NAMES = { document: "Document", person: "Person", project: "Project", entity: "Entity" };

function colour(name, fallback) {
  const value = getComputedStyle(document.body).getPropertyValue(name).trim();
  return value || fallback;
}

/** "document:pricing" → the edge keys a highlight names ("pricing>faq:references"). */
function edgeKey(source, target, kind) {
  return `${source}>${target}:${kind}`;
}

function elements(graph, followed) {
  const nodes = (graph.nodes || []).map((node) => ({
    group: "nodes",
    data: { id: node.id, label: node.label || node.id, kind: node.kind, docId: node.doc_id || "" },
    classes: [node.kind, graph.around && node.doc_id === graph.around ? "around" : ""].join(" "),
  }));
  const edges = (graph.edges || []).map((edge, index) => {
    const key = edgeKey(edge.source, edge.target, edge.kind);
    return {
      group: "edges",
      data: { id: `e${index}`, source: edge.source, target: edge.target, kind: edge.kind },
      classes: [edge.source.startsWith("document:") && edge.target.startsWith("document:") ? "link" : "name", followed.has(key) ? "followed" : ""].join(" "),
    };
  });
  return [...nodes, ...edges];
}

function stylesheet(compact) {
  const text = colour("--text", "#1b2430");
  const muted = colour("--muted", "#5d6978");
  const strong = colour("--warn", "#8a5a00");
  const style = [
    {
      selector: "node",
      style: {
        label: "data(label)",
        "font-size": compact ? 10 : 12,
        color: text,
        "text-wrap": "ellipsis",
        "text-max-width": compact ? 90 : 120,
        "text-valign": "bottom",
        "text-margin-y": 3,
        width: 20,
        height: 20,
        "border-width": 1,
        "border-color": "#ffffff",
      },
    },
    { selector: "edge", style: { width: 1, "line-color": muted, "target-arrow-color": muted, "target-arrow-shape": "triangle", "curve-style": "bezier", "arrow-scale": 0.7, opacity: 0.55 } },
    { selector: "edge.link", style: { width: 2, opacity: 0.9, label: "data(kind)", "font-size": 10, color: muted, "text-rotation": "autorotate", "text-background-color": "#ffffff", "text-background-opacity": 0.8, "text-background-padding": 1 } },
    { selector: "edge.followed", style: { width: 4, "line-color": strong, "target-arrow-color": strong, opacity: 1, color: strong } },
    { selector: "node.around", style: { width: 28, height: 28, "border-width": 3, "border-color": strong } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": strong } },
  ];
  style.push({ selector: "node.entity", style: { "min-zoomed-font-size": 9 } }); // many: named when zoomed in
  for (const [kind, look] of Object.entries(KIND_STYLE)) {
    style.push({ selector: `node.${kind}`, style: { shape: look.shape, "background-color": colour(look.colour, look.fallback) } });
  }
  return style;
}

/**
 * Draw `graph` in `container`; `highlight` lists links an answer followed ({source, target,
 * relation}: document ids); `onNode(node)` gets the clicked node's data ({id, label, kind, docId}).
 * The Cytoscape instance is kept on the container (`container.cy`).
 */
export function drawGraph(container, graph, { highlight = [], onNode = null, compact = false } = {}) {
  const followed = new Set(highlight.map((h) => edgeKey(`document:${h.source}`, `document:${h.target}`, h.relation)));
  const around = graph.around ? `document:${graph.around}` : null;
  const cy = cytoscape({
    container,
    elements: elements(graph, followed),
    style: stylesheet(compact),
    layout: around
      ? {
          name: "concentric",
          concentric: (node) => (node.id() === around ? 2 : 1),
          levelWidth: () => 1,
          minNodeSpacing: 70, // room for the labels around the ring
          animate: false,
          padding: 14,
        }
      : {
          name: "cose",
          animate: false,
          randomize: true,
          nodeRepulsion: () => 60000,
          nodeOverlap: 40,
          idealEdgeLength: () => 55,
          edgeElasticity: () => 100,
          gravity: 0.3,
          numIter: 1500,
          padding: 24,
        },
    minZoom: 0.2,
    maxZoom: 1.6, // a small graph is not blown up to fill the panel
    wheelSensitivity: 0.3,
    boxSelectionEnabled: false,
    autoungrabify: compact,
  });
  if (onNode) cy.on("tap", "node", (event) => onNode(event.target.data()));
  container.cy = cy;
  return cy;
}

/** The graph in words, for whoever cannot see the canvas: each node with what it links. */
export function describeGraph(graph) {
  const labels = new Map((graph.nodes || []).map((n) => [n.id, n.label || n.id]));
  const linked = new Map();
  for (const edge of graph.edges || []) {
    if (!linked.has(edge.source)) linked.set(edge.source, []);
    linked.get(edge.source).push(`${edge.kind} ${labels.get(edge.target) || edge.target}`);
  }
  return (graph.nodes || []).map((node) => ({ node, links: linked.get(node.id) || [] }));
}
