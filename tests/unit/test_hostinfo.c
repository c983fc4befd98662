/* hostinfo: driver families, /proc/interrupts matching, HTTP answer parsing for IMDSv2, and
 * the JSON for a loopback peer (the loopback device exists everywhere these tests run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "runner/host/hostinfo.h"
#include "runner/host/imds.h"
#include "runner/host/nic.h"
#include "lib/settings.h"

static void driver_families(void **state)
{
	(void)state;
	assert_string_equal(hostinfo_driver_family("ixgbevf"), "ixgbevf");
	assert_string_equal(hostinfo_driver_family("vif"), "vif");
	assert_string_equal(hostinfo_driver_family("xen_netfront"), "vif");
	assert_string_equal(hostinfo_driver_family("xen-netfront"), "vif");
	assert_string_equal(hostinfo_driver_family("ena"), "ena");
	assert_string_equal(hostinfo_driver_family("virtio_net"), "virtio");
	assert_string_equal(hostinfo_driver_family("mlx5_core"), "mlx5");
	assert_string_equal(hostinfo_driver_family("veth"), "veth");
	assert_string_equal(hostinfo_driver_family("loopback"), "loopback");
	/* Others by name, unknown stays unknown. */
	assert_string_equal(hostinfo_driver_family("ixgbe"), "ixgbe");
	assert_string_equal(hostinfo_driver_family("gve"), "gve");
	assert_null(hostinfo_driver_family(""));
	assert_null(hostinfo_driver_family(NULL));
}

static void interrupt_lines(void **state)
{
	(void)state;
	const char *eth0[] = {"eth0", "", ""};
	const char *virtio[] = {"ens3", "virtio2", "0000:00:03.0"};
	int irq = -1;
	assert_true(nic_irq_line_matches(" 52:  10  0  PCI-MSI 49152-edge  eth0-TxRx-0\n", eth0, 3, &irq));
	assert_int_equal(irq, 52);
	assert_true(nic_irq_line_matches("128: 1 2 3 4 IR-PCI-MSI 1-edge eth0\n", eth0, 3, &irq));
	assert_int_equal(irq, 128);
	/* eth0 is not eth01, veth0 nor a CPU header. */
	assert_false(nic_irq_line_matches(" 53:  1  0  PCI-MSI 1-edge  eth01-TxRx-0\n", eth0, 3, &irq));
	assert_false(nic_irq_line_matches(" 54:  1  0  PCI-MSI 1-edge  veth0\n", eth0, 3, &irq));
	assert_false(nic_irq_line_matches("           CPU0       CPU1\n", eth0, 3, &irq));
	assert_false(nic_irq_line_matches("NMI:  0  0  Non-maskable interrupts eth0\n", eth0, 3, &irq));
	/* virtio NICs name IRQs after their virtio device, mlx5 after the bus address. */
	assert_true(nic_irq_line_matches(" 38:  0 2677 PCI-MSIX-0000:00:03.0 1-edge virtio2-input.0\n",
					 virtio, 3, &irq));
	assert_int_equal(irq, 38);
	assert_false(nic_irq_line_matches(" 37:  0 1 PCI-MSIX-0000:00:03.0 0-edge virtio2-config\n", virtio, 3, &irq));
	assert_false(nic_irq_line_matches(" 34:  23 0 PCI-MSIX-0000:00:05.0 1-edge virtio4-input\n",
					  virtio, 3, &irq));
	const char *mlx[] = {"ens5", "", "0000:00:05.0"};
	assert_true(nic_irq_line_matches(" 90: 5 0 PCI-MSI 1-edge mlx5_comp0@pci:0000:00:05.0\n", mlx, 3,
					 &irq));
	assert_int_equal(irq, 90);
}

static void http_answers(void **state)
{
	(void)state;
	int status;
	const char *body;
	size_t len;
	struct ns_err err = {0};
	const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nServer: x\r\n\r\nm4.large\nTRAILING";
	assert_int_equal(imds_parse_response(ok, strlen(ok), &status, &body, &len, &err), 0);
	assert_int_equal(status, 200);
	assert_int_equal(len, 9);
	assert_memory_equal(body, "m4.large\n", 9);
	const char noclen[] = "HTTP/1.0 401 Unauthorized\r\n\r\n";
	assert_int_equal(imds_parse_response(noclen, strlen(noclen), &status, &body, &len, &err), 0);
	assert_int_equal(status, 401);
	assert_int_equal(len, 0);
	const char shortb[] = "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nabc";
	assert_int_equal(imds_parse_response(shortb, strlen(shortb), &status, &body, &len, &err), -1);
	const char chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
	assert_int_equal(imds_parse_response(chunked, strlen(chunked), &status, &body, &len, &err), -1);
	assert_non_null(strstr(err.msg, "chunked"));
	const char nohdr[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n";
	assert_int_equal(imds_parse_response(nohdr, strlen(nohdr), &status, &body, &len, &err), -1);
	const char garbage[] = "SSH-2.0-OpenSSH\r\n\r\n";
	assert_int_equal(imds_parse_response(garbage, strlen(garbage), &status, &body, &len, &err), -1);
}

static void imds_refuses_bad_addresses(void **state)
{
	(void)state;
	struct imds_info info;
	struct ns_err err = {0};
	assert_int_equal(imds_query("localhost:80", 0.2, &info, &err), -1);
	assert_non_null(strstr(err.msg, "numeric"));
	assert_int_equal(imds_query("127.0.0.1", 0.2, &info, &err), -1);
	assert_int_equal(imds_query("127.0.0.1:0", 0.2, &info, &err), -1);
	assert_int_equal(imds_query("127.0.0.1:80", 0, &info, &err), -1);
}

static void loopback_peer_json(void **state)
{
	(void)state;
	struct hostinfo_opts o;
	hostinfo_opts_init(&o);
	o.peer = "127.0.0.1";
	o.imds = false;
	char *json = NULL;
	struct ns_err err = {0};
	assert_int_equal(hostinfo_collect_json(&o, &json, &err), 0);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"interface\":{\"name\":\"lo\""));
	assert_non_null(strstr(json, "\"driver_family\":\"loopback\""));
	assert_non_null(strstr(json, "\"route\":{\"peer\":\"127.0.0.1\",\"source\":\"127.0.0.1\""));
	assert_non_null(strstr(json, "\"cloud\":null"));
	assert_non_null(strstr(json, "\"irq_cpus\":[]"));
	free(json);

	/* A dual-stack agent sees IPv4 peers as v4-mapped IPv6: still the IPv4 route. */
	o.peer = "::ffff:127.0.0.1";
	assert_int_equal(hostinfo_collect_json(&o, &json, &err), 0);
	assert_non_null(strstr(json, "\"interface\":{\"name\":\"lo\""));
	assert_non_null(strstr(json, "\"source\":\"127.0.0.1\""));
	free(json);
}

static void loopback_does_not_pace_udp(void **state)
{
	(void)state;
	struct ns_err err = {0};
	/* lo has noqueue: SO_MAX_PACING_RATE does not pace UDP there. */
	assert_int_equal(hostinfo_fq_paces("127.0.0.1", &err), 0);
	assert_int_equal(nic_fq_paces("no-such-if0", &err), -1);
}

static void opts_follow_the_environment(void **state)
{
	(void)state;
	struct hostinfo_opts o;
	struct ns_settings env;
	unsetenv("NETSWEEP_IMDS");
	unsetenv("NETSWEEP_IMDS_ADDR");
	settings_from_env(&env);
	settings_set(&env);
	hostinfo_opts_init(&o);
	assert_true(o.imds);
	assert_string_equal(o.imds_addr, "169.254.169.254:80");
	assert_true(o.imds_timeout_s > 0 && o.imds_timeout_s <= 1);
	setenv("NETSWEEP_IMDS", "off", 1);
	setenv("NETSWEEP_IMDS_ADDR", "127.0.0.1:8080", 1);
	settings_from_env(&env); /* as main() reads them */
	settings_set(&env);
	hostinfo_opts_init(&o);
	assert_false(o.imds);
	assert_string_equal(o.imds_addr, "127.0.0.1:8080");
	unsetenv("NETSWEEP_IMDS");
	unsetenv("NETSWEEP_IMDS_ADDR");
	settings_set(&(struct ns_settings){0});
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(driver_families),
		cmocka_unit_test(interrupt_lines),
		cmocka_unit_test(http_answers),
		cmocka_unit_test(imds_refuses_bad_addresses),
		cmocka_unit_test(loopback_peer_json),
		cmocka_unit_test(loopback_does_not_pace_udp),
		cmocka_unit_test(opts_follow_the_environment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
