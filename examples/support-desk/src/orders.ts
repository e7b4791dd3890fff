/** The shop's orders. A real backend reads its own database here; the example keeps three in memory. */
export interface Order {
  id: string;
  customer: string;
  items: string[];
  paid: number;
  status: "delivered" | "shipped" | "processing";
}

const ORDERS: readonly Order[] = [
  { id: "A-1001", customer: "Ada", items: ["kettle"], paid: 49.9, status: "delivered" },
  { id: "A-1002", customer: "Grace", items: ["lamp", "bulbs"], paid: 85, status: "shipped" },
  { id: "A-1003", customer: "Linus", items: ["desk"], paid: 310, status: "processing" },
];

export function findOrder(id: string): Order | undefined {
  return ORDERS.find((order) => order.id === id);
}
