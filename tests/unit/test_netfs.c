/* test_netfs: network file systems known by statfs's f_type, and a local
 * directory (the build's temporary one) that is not one. */
#include <stdio.h>

#include "check.h"
#include "base/netfs.h"

int main(void)
{
    CHECK_STR_EQ(netfs_name_of_type(0x6969), "NFS");
    CHECK_STR_EQ(netfs_name_of_type(0x0BD00BD0), "Lustre");
    CHECK_STR_EQ(netfs_name_of_type(0x47504653), "GPFS");
    CHECK_STR_EQ(netfs_name_of_type(0xFF534D42L), "CIFS/SMB");
    CHECK_STR_EQ(netfs_name_of_type(0xFE534D42L), "CIFS/SMB");
    /* f_type is signed on some ABIs: the magic's high bit set reads negative. */
    CHECK_STR_EQ(netfs_name_of_type((long)(int)0xFF534D42U), "CIFS/SMB");
    CHECK(netfs_name_of_type(0xEF53) == NULL);     /* ext4 */
    CHECK(netfs_name_of_type(0x01021994) == NULL); /* tmpfs */
    CHECK(netfs_name_of_type(0x58465342) == NULL); /* XFS */
    CHECK(netfs_name("/proc/self/status") == NULL);
    return check_done("test_netfs");
}
