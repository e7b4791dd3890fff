/** The shop's orders and known incidents: what its MCP server serves. A real one reads its own systems. */
export interface Order {
  id: string;
  customer: string;
  items: string[];
  paid: number;
  charges: number;
  status: "delivered" | "shipped" | "processing";
}

const ORDERS: readonly Order[] = [
  { id: "A-1001", customer: "Ada", items: ["kettle"], paid: 49.9, charges: 1, status: "delivered" },
  { id: "A-1002", customer: "Grace", items: ["lamp", "bulbs"], paid: 85, charges: 2, status: "shipped" },
  { id: "A-1003", customer: "Linus", items: ["desk"], paid: 310, charges: 1, status: "processing" },
];

export interface Incident {
  code: string;
  title: string;
  workaround: string;
}

const INCIDENTS: readonly Incident[] = [
  {
    code: "E42",
    title: "sign-in crashes the app after the 3.2 update",
    workaround: "update to 3.2.1, or sign out on the web and sign in again",
  },
];

export function findOrder(id: string): Order | undefined {
  return ORDERS.find((order) => order.id === id);
}

export function findIncident(code: string): Incident | undefined {
  return INCIDENTS.find((incident) => incident.code === code.toUpperCase());
}
