// A readiness run's test deliveries, rows owed their attempts (store/readiness.ts): their sender claims them under a
// lease, renews it while they are on the wire and finishes them; any instance takes over those whose lease lapsed.
// The webhooks layer sends them, through these.
export {
  claimLapsedDelivery,
  findRun,
  finishDelivery,
  lapsedDeliveries,
  renewDeliveryClaim,
  type DeliveryRow,
} from '../../store/readiness.js';
