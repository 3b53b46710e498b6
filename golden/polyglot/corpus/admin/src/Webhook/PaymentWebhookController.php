<?php

declare(strict_types=1);

namespace Pagebound\Admin\Webhook;

use PDO;
use Psr\Log\LoggerInterface;

/**
 * Receives asynchronous events from the payment service provider:
 * charge.succeeded, charge.failed, charge.refunded and charge.dispute.created.
 *
 * The PSP signs each delivery with HMAC-SHA256 over "timestamp.body" and puts
 * "t=<unix>,v1=<hex>" in the Pagebound-Signature header.
 */
final class PaymentWebhookController
{
    private const TOLERANCE_SECONDS = 300;

    public function __construct(
        private readonly PDO $db,
        private readonly string $signingSecret,
        private readonly LoggerInterface $logger,
    ) {
    }

    public function handle(string $rawBody, array $headers): array
    {
        $signature = $headers['pagebound-signature'] ?? '';
        if (!$this->verifySignature($rawBody, $signature, time())) {
            $this->logger->warning('payment webhook rejected: bad signature');
            return [401, ['error' => 'invalid_signature']];
        }

        $event = json_decode($rawBody, true, 32, JSON_THROW_ON_ERROR);
        if ($this->alreadyProcessed($event['id'])) {
            return [200, ['status' => 'duplicate']];
        }

        match ($event['type']) {
            'charge.succeeded' => $this->recordPayment($event['data'], 'succeeded'),
            'charge.failed' => $this->recordPayment($event['data'], 'failed'),
            'charge.refunded' => $this->recordRefund($event['data']),
            'charge.dispute.created' => $this->flagDispute($event['data']),
            default => $this->logger->info('ignoring webhook type ' . $event['type']),
        };

        $stmt = $this->db->prepare('INSERT INTO webhook_events (event_id, type, received_at) VALUES (?, ?, now())');
        $stmt->execute([$event['id'], $event['type']]);
        return [200, ['status' => 'ok']];
    }

    /**
     * Checks the signature header and rejects replays older than five minutes.
     * Uses hash_equals so the comparison is constant time.
     */
    public function verifySignature(string $body, string $header, int $now): bool
    {
        $parts = [];
        foreach (explode(',', $header) as $pair) {
            [$key, $value] = array_pad(explode('=', trim($pair), 2), 2, '');
            $parts[$key] = $value;
        }
        if (!isset($parts['t'], $parts['v1']) || !ctype_digit($parts['t'])) {
            return false;
        }
        if (abs($now - (int) $parts['t']) > self::TOLERANCE_SECONDS) {
            return false;
        }
        $expected = hash_hmac('sha256', $parts['t'] . '.' . $body, $this->signingSecret);
        return hash_equals($expected, $parts['v1']);
    }

    private function alreadyProcessed(string $eventId): bool
    {
        $stmt = $this->db->prepare('SELECT 1 FROM webhook_events WHERE event_id = ?');
        $stmt->execute([$eventId]);
        return (bool) $stmt->fetchColumn();
    }

    private function recordPayment(array $charge, string $status): void
    {
        $stmt = $this->db->prepare(
            'UPDATE payments SET status = ?, updated_at = now() WHERE charge_id = ?'
        );
        $stmt->execute([$status, $charge['id']]);
    }

    private function recordRefund(array $charge): void
    {
        $stmt = $this->db->prepare(
            'UPDATE payments SET refunded_minor = ?, status = ?, updated_at = now() WHERE charge_id = ?'
        );
        $fully = $charge['amount_refunded'] >= $charge['amount'];
        $stmt->execute([$charge['amount_refunded'], $fully ? 'refunded' : 'partially_refunded', $charge['id']]);
    }

    private function flagDispute(array $dispute): void
    {
        $stmt = $this->db->prepare(
            "UPDATE orders SET needs_review = true, review_reason = 'chargeback'
             WHERE id = (SELECT order_id FROM payments WHERE charge_id = ?)"
        );
        $stmt->execute([$dispute['charge']]);
        $this->logger->error('chargeback opened for charge ' . $dispute['charge']);
    }
}
