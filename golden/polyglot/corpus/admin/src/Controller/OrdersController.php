<?php

declare(strict_types=1);

namespace Pagebound\Admin\Controller;

use DateTimeImmutable;
use InvalidArgumentException;
use PDO;

require_once __DIR__ . '/../Support/helpers.php';

/**
 * Legacy back-office orders screen used by the customer support team.
 *
 * Handles the order list with filters, the order detail page, status
 * overrides, internal notes, CSV export and refund requests. New work should
 * go into the orders API; this controller is kept alive until the new admin
 * is finished, so keep changes small.
 */
class OrdersController
{
    private const PER_PAGE = 50;

    private const STATUSES = [
        'pending_payment', 'paid', 'picking', 'shipped', 'delivered', 'cancelled', 'refunded',
    ];

    /** Status changes support staff may force by hand. */
    private const MANUAL_TRANSITIONS = [
        'pending_payment' => ['paid', 'cancelled'],
        'paid' => ['picking', 'cancelled'],
        'picking' => ['paid', 'shipped', 'cancelled'],
        'shipped' => ['delivered'],
    ];

    private PDO $db;
    private string $apiBaseUrl;
    private string $apiToken;

    public function __construct(PDO $db, string $apiBaseUrl, string $apiToken)
    {
        $this->db = $db;
        $this->apiBaseUrl = rtrim($apiBaseUrl, '/');
        $this->apiToken = $apiToken;
    }

    // ------------------------------------------------------------------
    // Listing and filtering
    // ------------------------------------------------------------------

    /**
     * Turns the query string into a validated filter set. Unknown statuses and
     * unparseable dates are dropped rather than producing an error page.
     */
    public function parseFilters(array $query): array
    {
        $filters = [
            'status' => null,
            'from' => null,
            'to' => null,
            'email' => null,
            'needs_review' => !empty($query['needs_review']),
        ];
        if (isset($query['status']) && in_array($query['status'], self::STATUSES, true)) {
            $filters['status'] = $query['status'];
        }
        foreach (['from', 'to'] as $key) {
            if (!empty($query[$key])) {
                $date = DateTimeImmutable::createFromFormat('Y-m-d', $query[$key]);
                if ($date !== false) {
                    $filters[$key] = $date->format('Y-m-d');
                }
            }
        }
        if (!empty($query['email'])) {
            $filters['email'] = strtolower(trim((string) $query['email']));
        }
        return $filters;
    }

    /** Builds the WHERE clause and bound parameters for a filter set. */
    private function buildWhere(array $filters): array
    {
        $clauses = ['1 = 1'];
        $params = [];
        if ($filters['status'] !== null) {
            $clauses[] = 'o.status = :status';
            $params[':status'] = $filters['status'];
        }
        if ($filters['from'] !== null) {
            $clauses[] = 'o.created_at >= :from';
            $params[':from'] = $filters['from'];
        }
        if ($filters['to'] !== null) {
            $clauses[] = "o.created_at < (:to::date + interval '1 day')";
            $params[':to'] = $filters['to'];
        }
        if ($filters['email'] !== null) {
            $clauses[] = 'c.email LIKE :email';
            $params[':email'] = '%' . addcslashes($filters['email'], '%_') . '%';
        }
        if ($filters['needs_review']) {
            $clauses[] = 'o.needs_review = true';
        }
        return [implode(' AND ', $clauses), $params];
    }

    public function index(array $query): string
    {
        $filters = $this->parseFilters($query);
        $page = max(1, (int) ($query['page'] ?? 1));
        [$where, $params] = $this->buildWhere($filters);

        $count = $this->db->prepare("SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE $where");
        $count->execute($params);
        $total = (int) $count->fetchColumn();

        $stmt = $this->db->prepare(
            "SELECT o.id, o.status, o.total_minor, o.currency, o.created_at, o.needs_review, c.email
             FROM orders o JOIN customers c ON c.id = o.customer_id
             WHERE $where
             ORDER BY o.created_at DESC
             LIMIT :limit OFFSET :offset"
        );
        foreach ($params as $name => $value) {
            $stmt->bindValue($name, $value);
        }
        $stmt->bindValue(':limit', self::PER_PAGE, PDO::PARAM_INT);
        $stmt->bindValue(':offset', ($page - 1) * self::PER_PAGE, PDO::PARAM_INT);
        $stmt->execute();
        $orders = $stmt->fetchAll(PDO::FETCH_ASSOC);

        $pagination = paginate($page, self::PER_PAGE, $total, $query);
        return $this->render('orders/index', compact('orders', 'filters', 'pagination', 'total'));
    }

    // ------------------------------------------------------------------
    // Detail page
    // ------------------------------------------------------------------

    public function show(string $orderId): string
    {
        $order = $this->findOrder($orderId);
        $lines = $this->db->prepare('SELECT isbn, title, quantity, unit_price_minor FROM order_lines WHERE order_id = ? ORDER BY position');
        $lines->execute([$orderId]);

        $events = $this->db->prepare('SELECT from_status, to_status, reason, created_at FROM order_events WHERE order_id = ? ORDER BY created_at');
        $events->execute([$orderId]);

        $notes = $this->db->prepare('SELECT author, body, created_at FROM order_notes WHERE order_id = ? ORDER BY created_at DESC');
        $notes->execute([$orderId]);

        return $this->render('orders/show', [
            'order' => $order,
            'lines' => $lines->fetchAll(PDO::FETCH_ASSOC),
            'events' => $events->fetchAll(PDO::FETCH_ASSOC),
            'notes' => $notes->fetchAll(PDO::FETCH_ASSOC),
            'transitions' => self::MANUAL_TRANSITIONS[$order['status']] ?? [],
            'csrf' => csrf_token(),
        ]);
    }

    private function findOrder(string $orderId): array
    {
        $stmt = $this->db->prepare(
            'SELECT o.*, c.email, c.name AS customer_name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?'
        );
        $stmt->execute([$orderId]);
        $order = $stmt->fetch(PDO::FETCH_ASSOC);
        if ($order === false) {
            http_response_code(404);
            throw new InvalidArgumentException("Order $orderId not found");
        }
        return $order;
    }

    // ------------------------------------------------------------------
    // Actions
    // ------------------------------------------------------------------

    /**
     * Support override of an order's status, e.g. putting a stuck order back
     * to "paid" so the worker re-picks it. Only whitelisted transitions are
     * allowed and every change is written to order_events with the staff name.
     */
    public function updateStatus(string $orderId, array $post, string $staffName): void
    {
        require_csrf($post);
        $order = $this->findOrder($orderId);
        $target = (string) ($post['status'] ?? '');
        $allowed = self::MANUAL_TRANSITIONS[$order['status']] ?? [];
        if (!in_array($target, $allowed, true)) {
            throw new InvalidArgumentException("Cannot move order from {$order['status']} to $target");
        }
        $this->db->beginTransaction();
        try {
            $this->db->prepare('UPDATE orders SET status = ?, updated_at = now() WHERE id = ?')
                ->execute([$target, $orderId]);
            $this->db->prepare('INSERT INTO order_events (order_id, from_status, to_status, reason) VALUES (?, ?, ?, ?)')
                ->execute([$orderId, $order['status'], $target, 'manual override by ' . $staffName]);
            $this->db->commit();
        } catch (\Throwable $e) {
            $this->db->rollBack();
            throw $e;
        }
    }

    public function addNote(string $orderId, array $post, string $staffName): void
    {
        require_csrf($post);
        $body = trim((string) ($post['body'] ?? ''));
        if ($body === '' || mb_strlen($body) > 2000) {
            throw new InvalidArgumentException('Notes must be between 1 and 2000 characters');
        }
        $this->db->prepare('INSERT INTO order_notes (order_id, author, body) VALUES (?, ?, ?)')
            ->execute([$orderId, $staffName, $body]);
    }

    /**
     * Asks the orders API to refund an order. The API owns the refund rules
     * (role check, allowed statuses); we just forward the support agent's reason.
     */
    public function requestRefund(string $orderId, array $post): array
    {
        require_csrf($post);
        $reason = trim((string) ($post['reason'] ?? ''));
        $ch = curl_init($this->apiBaseUrl . '/v1/orders/' . rawurlencode($orderId) . '/refund');
        curl_setopt_array($ch, [
            CURLOPT_POST => true,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => 15,
            CURLOPT_HTTPHEADER => [
                'Authorization: Bearer ' . $this->apiToken,
                'Content-Type: application/json',
            ],
            CURLOPT_POSTFIELDS => json_encode(['reason' => $reason]),
        ]);
        $body = curl_exec($ch);
        $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        if ($body === false || $status >= 500) {
            return ['ok' => false, 'message' => 'The orders API is unavailable, try again in a minute.'];
        }
        $decoded = json_decode((string) $body, true) ?? [];
        if ($status >= 400) {
            return ['ok' => false, 'message' => $decoded['message'] ?? "Refund rejected ($status)"];
        }
        return ['ok' => true, 'order' => $decoded];
    }

    /** Streams the filtered order list as CSV for the finance team. */
    public function exportCsv(array $query): void
    {
        $filters = $this->parseFilters($query);
        [$where, $params] = $this->buildWhere($filters);
        $stmt = $this->db->prepare(
            "SELECT o.id, c.email, o.status, o.total_minor, o.currency, o.created_at
             FROM orders o JOIN customers c ON c.id = o.customer_id WHERE $where ORDER BY o.created_at"
        );
        $stmt->execute($params);

        header('Content-Type: text/csv; charset=utf-8');
        header('Content-Disposition: attachment; filename="orders-' . date('Ymd') . '.csv"');
        $out = fopen('php://output', 'w');
        fputcsv($out, ['order_id', 'email', 'status', 'total', 'currency', 'created_at']);
        while ($row = $stmt->fetch(PDO::FETCH_ASSOC)) {
            fputcsv($out, [
                $row['id'], $row['email'], $row['status'],
                number_format($row['total_minor'] / 100, 2, '.', ''), $row['currency'], $row['created_at'],
            ]);
        }
        fclose($out);
    }

    private function render(string $template, array $vars): string
    {
        extract($vars, EXTR_SKIP);
        ob_start();
        include __DIR__ . '/../../templates/' . $template . '.php';
        return (string) ob_get_clean();
    }
}
