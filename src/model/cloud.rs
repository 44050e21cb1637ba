//! A cloud provider's block device, as sysfs names it (its model, vendor or driver): a volume
//! whose rate is what the provider provisions, not what the hardware can do. Only the name is
//! known: the limits are the user's to give (`--limit`), never looked up in a table that would
//! go stale.

use serde::{Deserialize, Serialize};

/// Which provider's block device a disk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CloudDisk {
    /// An AWS EBS volume on a Nitro instance (NVMe model `Amazon Elastic Block Store`).
    AwsEbs,
    /// AWS EC2 instance storage (NVMe model `Amazon EC2 NVMe Instance Storage`).
    AwsInstanceStore,
    /// A Xen virtual block device (driver `vbd`): an older AWS instance's EBS volume or
    /// instance store.
    XenVbd,
    /// A Google Persistent Disk or Hyperdisk (SCSI `Google` `PersistentDisk`, NVMe
    /// `nvme_card-pd`: the two cannot be told apart in sysfs).
    GooglePersistentDisk,
    /// A Google local SSD (SCSI `Google` `EphemeralDisk`, NVMe `nvme_card`, `nvme_cardN`).
    GoogleLocalSsd,
    /// An Azure managed, OS or temporary disk (SCSI `Msft` `Virtual Disk`, NVMe
    /// `MSFT NVMe Accelerator v1.0`); a Hyper-V guest's own disks say the same over SCSI.
    AzureDisk,
    /// An Azure local NVMe disk (`Microsoft NVMe Direct Disk`, `… v2`).
    AzureLocalNvme,
    /// An Oracle Cloud block or boot volume (SCSI `ORACLE` `BlockVolume`).
    OracleBlockVolume,
    /// An Alibaba Cloud ESSD over NVMe (`Alibaba Cloud Elastic Block Storage`).
    AlibabaEssd,
    /// A Hetzner Cloud volume (SCSI `HC` `Volume`).
    HetznerVolume,
    /// A DigitalOcean volume (SCSI `DO` `Volume`).
    DigitalOceanVolume,
    /// A Linode (Akamai) block storage volume (SCSI vendor `Linode`).
    LinodeVolume,
}

impl CloudDisk {
    /// The name as written in tables.
    pub fn name(self) -> &'static str {
        match self {
            CloudDisk::AwsEbs => "AWS EBS volume",
            CloudDisk::AwsInstanceStore => "AWS EC2 instance store",
            CloudDisk::XenVbd => "Xen virtual block device (an older AWS instance's volume)",
            CloudDisk::GooglePersistentDisk => "Google Persistent Disk or Hyperdisk",
            CloudDisk::GoogleLocalSsd => "Google local SSD",
            CloudDisk::AzureDisk => "Azure (or Hyper-V) virtual disk",
            CloudDisk::AzureLocalNvme => "Azure local NVMe disk",
            CloudDisk::OracleBlockVolume => "Oracle Cloud block volume",
            CloudDisk::AlibabaEssd => "Alibaba Cloud ESSD",
            CloudDisk::HetznerVolume => "Hetzner Cloud volume",
            CloudDisk::DigitalOceanVolume => "DigitalOcean volume",
            CloudDisk::LinodeVolume => "Linode block storage volume",
        }
    }

    /// Whether the provider provisions its rate (a network volume's IOPS and MB/s, often with
    /// a burst bucket), rather than a local disk's hardware setting it.
    pub fn provisioned(self) -> bool {
        !matches!(
            self,
            CloudDisk::AwsInstanceStore | CloudDisk::GoogleLocalSsd | CloudDisk::AzureLocalNvme
        )
    }
}
